fn main() {
    let text = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    println!("{} words, digest {:08x}", text::count_words(&text), text::fnv1a(text.as_bytes()));
}
