//! Folders irgate made for one command and removes when it ends, even when Ctrl-C (SIGINT or
//! SIGTERM) interrupts it: the scratch copy of a calibration holds a whole build.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The folders to remove if the process is interrupted.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A folder removed, with all it holds, when this is dropped or the process is interrupted.
#[derive(Debug)]
pub struct Removed {
    dir: PathBuf,
}

impl Removed {
    /// Takes charge of `dir` (which may not exist yet).
    pub fn new(dir: &Path) -> Removed {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(|| {
            // Another handler already set (a test harness, say) leaves the drop to clean up.
            let _ = ctrlc::set_handler(|| {
                for dir in FOLDERS.lock().map(|d| d.clone()).unwrap_or_default() {
                    let _ = std::fs::remove_dir_all(&dir);
                    eprintln!("irgate: interrupted; removed {}", dir.display());
                }
                std::process::exit(130);
            });
        });
        if let Ok(mut folders) = FOLDERS.lock() {
            folders.push(dir.to_owned());
        }
        Removed {
            dir: dir.to_owned(),
        }
    }
}

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Ok(mut folders) = FOLDERS.lock() {
            folders.retain(|d| *d != self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_goes_when_its_guard_does() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("scratch");
        {
            let _removed = Removed::new(&dir);
            std::fs::create_dir_all(dir.join("target/release")).unwrap();
            std::fs::write(dir.join("target/release/x"), "x").unwrap();
            assert!(FOLDERS.lock().unwrap().contains(&dir));
        }
        assert!(!dir.exists());
        assert!(!FOLDERS.lock().unwrap().contains(&dir));
    }
}
