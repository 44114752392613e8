//! A Rust source read for the change map: its functions with their lines (first attribute to
//! closing brace), every other item with what it is, the test-only items, the inside of
//! multi-line literals, the lines that only hold attributes no code reads; and a hunk mapped
//! onto them.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, GenericParam, Generics, ImplItem, Item, Meta, Signature, TraitItem};

use crate::model::coverage::Lines;

/// A function with a body, outside tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Function {
    /// Module path, impl type (`<Type as Trait>` for trait impls) or trait, and name:
    /// `codec::Frame::encode`.
    pub path: String,
    /// From its first outer attribute to its closing brace.
    pub lines: Lines,
    /// Type or const parameters on it or its impl, `impl Trait` arguments, a trait's default
    /// method, or a generic function or impl nested in its body.
    pub generic: bool,
    /// A `const fn`: the compiler may run it while building.
    pub constant: bool,
    /// The lines of its `cfg` and `cfg_attr` attributes.
    pub cfg: Vec<Lines>,
    /// Its body defines a `#[macro_export]` macro, which code elsewhere expands.
    pub exports_macro: bool,
}

/// Any item, functions included.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Region {
    lines: Lines,
    what: &'static str,
    /// Only compiled for tests: under `#[cfg(test)]` (or `all(test, ...)`), or a `#[test]` fn.
    test: bool,
}

/// One side of a `.rs` file, read.
#[derive(Debug)]
pub(super) struct Source {
    lines: Vec<String>,
    functions: Vec<Function>,
    regions: Vec<Region>,
    /// The lines inside multi-line literals after their first (a `//` there is no comment).
    in_literal: Vec<Lines>,
    /// The lines that hold nothing but doc comments and lint-only attributes (`quiet`) of items
    /// no macro reads, and plain comments after them.
    quiet: BTreeSet<u32>,
}

/// Where a hunk falls on one side: lines, or the point after a line (a side with no lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Range {
    /// These lines.
    Lines(Lines),
    /// Between this line and the next (0: before the first).
    After(u32),
}

impl Range {
    /// The range a hunk header's `(start, count)` gives.
    pub fn from_header((start, count): (u32, u32)) -> Range {
        match count {
            0 => Range::After(start),
            n => Range::Lines(Lines {
                first: start,
                last: start.saturating_add(n - 1),
            }),
        }
    }

    /// Whether it lies inside `region` (a point strictly inside: not before its first line nor
    /// after its last).
    fn within(&self, region: &Lines) -> bool {
        match *self {
            Range::Lines(l) => region.first <= l.first && l.last <= region.last,
            Range::After(p) => region.first <= p && p < region.last,
        }
    }

    fn overlaps(&self, other: &Lines) -> bool {
        matches!(self, Range::Lines(l) if l.overlaps(other))
    }
}

/// What a hunk changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Mapped {
    /// Nothing a benchmark build compiles: comments, blank lines, test-only code.
    Inert,
    /// Code inside these functions (paths), each present on both sides.
    Functions(Vec<String>),
    /// Something that can change code anywhere: what it is.
    Everything(&'static str),
}

impl Source {
    /// Reads `text`; the line and message of the parse error when it is not Rust.
    pub fn read(text: &str) -> Result<Source, (u32, String)> {
        let source = read(text);
        // The spans' line tables are kept per thread until invalidated; none is used after this.
        proc_macro2::extra::invalidate_current_thread_spans();
        source
    }

    /// The functions, outside tests.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    fn function(&self, range: Range) -> Option<&Function> {
        self.functions.iter().find(|f| range.within(&f.lines))
    }

    fn has_function(&self, path: &str) -> bool {
        self.functions.iter().any(|f| f.path == path)
    }

    fn test_only(&self, range: Range) -> bool {
        self.regions
            .iter()
            .any(|r| r.test && range.within(&r.lines))
    }

    /// Whether every line of `range` is blank, a plain `//` comment, or holds only attributes
    /// that change no code (`quiet`) of an item no macro reads (a doc comment on an item with a
    /// derive is read by the derive: clap turns it into help text).
    fn no_code(&self, range: Range) -> bool {
        let Range::Lines(lines) = range else {
            return true;
        };
        (lines.first..=lines.last).all(|n| {
            // A line the file does not have is no comment: fail safe.
            let Some(text) = self
                .lines
                .get((n as usize).wrapping_sub(1))
                .map(|l| l.trim())
            else {
                return false;
            };
            let comment = text.is_empty()
                || (text.starts_with("//")
                    && !text.starts_with("//!")
                    && (!text.starts_with("///") || text.starts_with("////")));
            (comment && !self.in_literal.iter().any(|l| l.first <= n && n <= l.last))
                || self.quiet.contains(&n)
        })
    }

    /// What the innermost item around `range` is.
    fn describe(&self, range: Range) -> &'static str {
        let inside = self
            .regions
            .iter()
            .filter(|r| range.within(&r.lines))
            .min_by_key(|r| r.lines.last - r.lines.first);
        match inside {
            Some(region) => region.what,
            None if self.regions.iter().any(|r| range.overlaps(&r.lines)) => {
                "a change across items"
            }
            None => "code outside any item (crate attributes)",
        }
    }
}

/// Maps a hunk (its range on the base side and on the head side) onto the two sides.
pub(super) fn map(base: &Source, head: &Source, on_base: Range, on_head: Range) -> Mapped {
    if base.no_code(on_base) && head.no_code(on_head) {
        return Mapped::Inert;
    }
    if base.test_only(on_base) && head.test_only(on_head) {
        return Mapped::Inert;
    }
    let described = || match on_head {
        Range::Lines(_) => head.describe(on_head),
        Range::After(_) => base.describe(on_base),
    };
    let (Some(old), Some(new)) = (base.function(on_base), head.function(on_head)) else {
        return Mapped::Everything(match described() {
            "a function" => "a function added, removed or renamed",
            what => what,
        });
    };
    if old.constant || new.constant {
        return Mapped::Everything("a const fn (the compiler may run it while building)");
    }
    if old.cfg.iter().any(|l| on_base.overlaps(l)) || new.cfg.iter().any(|l| on_head.overlaps(l)) {
        return Mapped::Everything("a cfg attribute");
    }
    if old.exports_macro || new.exports_macro {
        return Mapped::Everything("a function whose body exports a macro");
    }
    if !head.has_function(&old.path) || !base.has_function(&new.path) {
        return Mapped::Everything("a function added, removed or renamed");
    }
    let mut paths = vec![old.path.clone()];
    if new.path != old.path {
        paths.push(new.path.clone());
    }
    Mapped::Functions(paths)
}

fn read(text: &str) -> Result<Source, (u32, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A shebang line is no token; keep its line so that the numbers stay right.
    let code = match text.strip_prefix("#!") {
        Some(rest) if !rest.trim_start().starts_with('[') => {
            let end = text.find('\n').unwrap_or(text.len());
            format!("{}{}", " ".repeat(end), &text[end..])
        }
        _ => text.to_owned(),
    };
    let error = |e: syn::Error| (line(e.span().start().line), e.to_string());
    let tokens = TokenStream::from_str(&code).map_err(|e| {
        (
            line(e.span().start().line),
            format!("cannot be tokenized: {e}"),
        )
    })?;
    let mut in_literal = Vec::new();
    literals(tokens.clone(), &mut in_literal);
    let file: syn::File = syn::parse2(tokens).map_err(error)?;
    let mut source = Source {
        lines: text.lines().map(str::to_owned).collect(),
        functions: Vec::new(),
        regions: Vec::new(),
        in_literal,
        quiet: BTreeSet::new(),
    };
    let mut attributes = Attributes::default();
    // No macro reads the file's inner attributes (inner attribute macros, and attribute macros
    // on a `mod name;`, are unstable), whatever else they are.
    attributes.take(&file.attrs);
    items(&file.items, "", false, true, &mut source, &mut attributes);
    source.quiet = attributes.lines(&source.lines);
    Ok(source)
}

/// The attributes read so far that change no code when they change: their character columns
/// on each line.
#[derive(Default)]
struct Attributes {
    columns: BTreeMap<u32, Vec<(usize, usize)>>,
}

impl Attributes {
    /// Takes the quiet attributes of an item whose attributes are `attrs`, when no macro reads
    /// them: when `read` is false (an enclosing item has a macro attribute or a derive) or the
    /// item has an attribute that is not `plain`. Whether the item's own tokens reach no macro.
    fn item(&mut self, attrs: &[Attribute], outer: bool) -> bool {
        let plain = outer && attrs.iter().all(plain);
        if plain {
            self.take(attrs);
        }
        plain
    }

    /// Takes the quiet ones of `attrs`, which no macro reads.
    fn take(&mut self, attrs: &[Attribute]) {
        for attribute in attrs.iter().filter(|a| quiet(a)) {
            let (start, end) = (attribute.span().start(), attribute.span().end());
            for n in start.line..=end.line {
                let from = if n == start.line { start.column } else { 0 };
                let to = if n == end.line {
                    end.column
                } else {
                    usize::MAX
                };
                self.columns.entry(line(n)).or_default().push((from, to));
            }
        }
    }

    /// The lines of `text` with nothing but these attributes on them, and blanks, and a plain
    /// `//` comment after them.
    fn lines(&self, text: &[String]) -> BTreeSet<u32> {
        self.columns
            .iter()
            .filter(|(n, columns)| {
                let Some(text) = text.get((**n as usize).wrapping_sub(1)) else {
                    return false;
                };
                let chars: Vec<char> = text.chars().collect();
                let covered = |at: usize| columns.iter().any(|&(from, to)| from <= at && at < to);
                for (at, c) in chars.iter().enumerate() {
                    if covered(at) || c.is_whitespace() {
                        continue;
                    }
                    let rest: String = chars[at..].iter().collect();
                    return rest.starts_with("//")
                        && !rest.starts_with("//!")
                        && (!rest.starts_with("///") || rest.starts_with("////"));
                }
                true
            })
            .map(|(n, _)| *n)
            .collect()
    }
}

/// Whether an attribute changes no code, only documentation and lints: a doc comment, `doc`,
/// `must_use`, `allow`, `warn`, `deny`, `forbid`, `expect`, `deprecated`, `diagnostic::...`, or
/// a `cfg_attr` that adds only such attributes.
fn quiet(attribute: &Attribute) -> bool {
    names(attribute).is_some_and(|paths| paths.iter().all(|path| quiet_name(path)))
}

/// `path`: the attribute's path, segment by segment.
fn quiet_name(path: &[String]) -> bool {
    path.first().is_some_and(|s| s == "diagnostic")
        || [
            "doc",
            "must_use",
            "allow",
            "warn",
            "deny",
            "forbid",
            "expect",
            "deprecated",
        ]
        .iter()
        .any(|name| path == [*name])
}

/// Whether an attribute is built in and hands the item to no macro: the quiet ones, `cfg`,
/// `inline`, `cold`, `track_caller`, `non_exhaustive`, `repr`, `test`, `macro_export`, or a
/// `cfg_attr` that adds only such attributes. A derive and any other attribute may read the
/// item's attributes.
fn plain(attribute: &Attribute) -> bool {
    names(attribute).is_some_and(|paths| {
        paths.iter().all(|path| {
            quiet_name(path)
                || [
                    "cfg",
                    "inline",
                    "cold",
                    "track_caller",
                    "non_exhaustive",
                    "repr",
                    "test",
                    "macro_export",
                ]
                .iter()
                .any(|name| path == &[*name])
        })
    })
}

/// The paths (segment by segment) of the attributes an attribute stands for: its own, or for a
/// `cfg_attr` those of the attributes it adds (nested ones too); `None` when a `cfg_attr` cannot
/// be read.
fn names(attribute: &Attribute) -> Option<Vec<Vec<String>>> {
    fn added(meta: &Meta, out: &mut Vec<Vec<String>>) -> Option<()> {
        match meta {
            Meta::List(list) if list.path.is_ident("cfg_attr") => {
                let metas = list
                    .parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
                    .ok()?;
                // The first is the predicate; an attribute with none after it adds nothing.
                for meta in metas.iter().skip(1) {
                    added(meta, out)?;
                }
                Some(())
            }
            other => {
                let path = other.path().segments.iter();
                out.push(path.map(|s| s.ident.to_string()).collect());
                Some(())
            }
        }
    }
    let mut out = Vec::new();
    added(&attribute.meta, &mut out)?;
    Some(out)
}

fn line(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn lines_of(span: Span) -> Lines {
    Lines {
        first: line(span.start().line),
        last: line(span.end().line),
    }
}

fn literals(tokens: TokenStream, out: &mut Vec<Lines>) {
    for token in tokens {
        match token {
            TokenTree::Group(group) => literals(group.stream(), out),
            TokenTree::Literal(literal) => {
                let lines = lines_of(literal.span());
                if lines.last > lines.first {
                    out.push(Lines {
                        first: lines.first + 1,
                        last: lines.last,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Reads `list` into `out`: regions, functions, and into `attributes` the quiet attributes of
/// the items no macro reads (`outer`: none of the enclosing items hands its tokens to a macro).
fn items(
    list: &[Item],
    module: &str,
    test: bool,
    outer: bool,
    out: &mut Source,
    attributes: &mut Attributes,
) {
    for item in list {
        let lines = lines_of(item.span());
        let mut region = |what, test| {
            out.regions.push(Region { lines, what, test });
        };
        match item {
            Item::Fn(f) => {
                let test = test || is_test(&f.attrs);
                region("a function", test);
                attributes.item(&f.attrs, outer);
                if !test {
                    let generic = generic(&f.sig, None);
                    out.functions.push(function(
                        format!("{module}{}", f.sig.ident),
                        lines,
                        generic,
                        &f.sig,
                        &f.attrs,
                        &f.block,
                    ));
                }
            }
            Item::Mod(m) => {
                let test = test || is_test(&m.attrs);
                region("a module", test);
                let outer = attributes.item(&m.attrs, outer);
                if let Some((_, inner)) = &m.content {
                    let module = format!("{module}{}::", m.ident);
                    items(inner, &module, test, outer, out, attributes);
                }
            }
            Item::Impl(i) => {
                let test = test || is_test(&i.attrs);
                region("an impl block", test);
                let outer = attributes.item(&i.attrs, outer);
                let ty = compact(&i.self_ty.span());
                let owner = match &i.trait_ {
                    Some((path, _)) => format!("<{ty} as {}>", compact(&path.span())),
                    None => ty,
                };
                for member in &i.items {
                    let lines = lines_of(member.span());
                    let (what, attrs) = match member {
                        ImplItem::Fn(f) => ("a function", &f.attrs),
                        ImplItem::Const(c) => ("an associated constant", &c.attrs),
                        ImplItem::Type(t) => ("an associated type", &t.attrs),
                        ImplItem::Macro(m) => ("a macro invocation", &m.attrs),
                        _ => {
                            out.regions.push(Region {
                                lines,
                                what: "an item irgate cannot read",
                                test,
                            });
                            continue;
                        }
                    };
                    let test = test || is_test(attrs);
                    out.regions.push(Region { lines, what, test });
                    if !matches!(member, ImplItem::Macro(_)) {
                        attributes.item(attrs, outer);
                    }
                    if let ImplItem::Fn(f) = member
                        && !test
                    {
                        let generic = generic(&f.sig, Some(&i.generics));
                        out.functions.push(function(
                            format!("{module}{owner}::{}", f.sig.ident),
                            lines,
                            generic,
                            &f.sig,
                            &f.attrs,
                            &f.block,
                        ));
                    }
                }
            }
            Item::Trait(t) => {
                let test = test || is_test(&t.attrs);
                region("a trait", test);
                let outer = attributes.item(&t.attrs, outer);
                for member in &t.items {
                    let lines = lines_of(member.span());
                    let what = match member {
                        TraitItem::Fn(f) => {
                            let test = test || is_test(&f.attrs);
                            attributes.item(&f.attrs, outer);
                            if let (Some(block), false) = (&f.default, test) {
                                out.regions.push(Region {
                                    lines,
                                    what: "a function",
                                    test,
                                });
                                out.functions.push(function(
                                    format!("{module}{}::{}", t.ident, f.sig.ident),
                                    lines,
                                    true,
                                    &f.sig,
                                    &f.attrs,
                                    block,
                                ));
                            }
                            continue;
                        }
                        TraitItem::Const(c) => {
                            attributes.item(&c.attrs, outer);
                            "an associated constant"
                        }
                        TraitItem::Type(t) => {
                            attributes.item(&t.attrs, outer);
                            "an associated type"
                        }
                        TraitItem::Macro(_) => "a macro invocation",
                        _ => "an item irgate cannot read",
                    };
                    out.regions.push(Region { lines, what, test });
                }
            }
            Item::Struct(s) => {
                region("a type", test || is_test(&s.attrs));
                let outer = attributes.item(&s.attrs, outer);
                for field in &s.fields {
                    attributes.item(&field.attrs, outer);
                }
            }
            Item::Enum(e) => {
                region("a type", test || is_test(&e.attrs));
                let outer = attributes.item(&e.attrs, outer);
                for variant in &e.variants {
                    let outer = attributes.item(&variant.attrs, outer);
                    for field in &variant.fields {
                        attributes.item(&field.attrs, outer);
                    }
                }
            }
            Item::Union(u) => {
                region("a type", test || is_test(&u.attrs));
                let outer = attributes.item(&u.attrs, outer);
                for field in &u.fields.named {
                    attributes.item(&field.attrs, outer);
                }
            }
            Item::Macro(m) => {
                // A macro invocation may read the attributes before it; a definition does not.
                let what = if m.ident.is_some() {
                    attributes.item(&m.attrs, outer);
                    "a macro"
                } else {
                    "a macro invocation"
                };
                region(what, test || is_test(&m.attrs));
            }
            other => {
                let (what, attrs): (&'static str, &[Attribute]) = match other {
                    Item::Const(c) => ("a constant", &c.attrs),
                    Item::Static(s) => ("a static", &s.attrs),
                    Item::Type(t) => ("a type", &t.attrs),
                    Item::TraitAlias(t) => ("a trait", &t.attrs),
                    Item::Use(u) => ("an import", &u.attrs),
                    Item::ExternCrate(e) => ("an extern crate", &e.attrs),
                    Item::ForeignMod(f) => ("an extern block", &f.attrs),
                    _ => ("an item irgate cannot read", &[]),
                };
                region(what, test || is_test(attrs));
                attributes.item(attrs, outer);
            }
        }
    }
}

fn function(
    path: String,
    lines: Lines,
    generic: bool,
    sig: &Signature,
    attrs: &[Attribute],
    block: &syn::Block,
) -> Function {
    let mut nested = Nested::default();
    nested.visit_block(block);
    Function {
        path,
        lines,
        generic: generic || nested.generic,
        constant: sig.constness.is_some(),
        cfg: attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
            .map(|a| lines_of(a.span()))
            .collect(),
        exports_macro: nested.exports_macro,
    }
}

/// Whether a function is generic on its own: type or const parameters on it or its impl, or an
/// `impl Trait` argument.
fn generic(sig: &Signature, outer: Option<&Generics>) -> bool {
    let arguments = sig.inputs.span().source_text().unwrap_or_default();
    has_type_parameters(&sig.generics)
        || outer.is_some_and(has_type_parameters)
        || arguments
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "impl")
}

fn has_type_parameters(generics: &Generics) -> bool {
    generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)))
}

/// What a function body holds that reaches beyond it.
#[derive(Default)]
struct Nested {
    generic: bool,
    exports_macro: bool,
}

impl<'ast> Visit<'ast> for Nested {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.generic |= has_type_parameters(&f.sig.generics);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.generic |= has_type_parameters(&i.generics);
        syn::visit::visit_item_impl(self, i);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        self.exports_macro |= m.attrs.iter().any(|a| a.path().is_ident("macro_export"));
        syn::visit::visit_item_macro(self, m);
    }
}

/// Whether the attributes make an item test-only: `#[test]`, or `#[cfg(test)]` (also within
/// `all(...)`).
fn is_test(attrs: &[Attribute]) -> bool {
    fn test(meta: &Meta) -> bool {
        match meta {
            Meta::Path(path) => path.is_ident("test"),
            Meta::List(list) if list.path.is_ident("all") => list
                .parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
                .is_ok_and(|metas| metas.iter().any(test)),
            _ => false,
        }
    }
    attrs.iter().any(|a| match &a.meta {
        Meta::Path(path) => path.is_ident("test"),
        Meta::List(list) if list.path.is_ident("cfg") => {
            a.parse_args::<Meta>().is_ok_and(|meta| test(&meta))
        }
        _ => false,
    })
}

/// The source text of a span with its spaces dropped but between two words: `Frame<'a, T>`
/// becomes `Frame<'a,T>`, `dyn Codec` stays.
fn compact(span: &Span) -> String {
    let text = span.source_text().unwrap_or_default();
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"//! A module.
use std::fmt;

const LIMIT: usize = 4;

/// Encodes.
#[inline]
pub fn encode(x: u32) -> u32 {
    // double it
    x * 2
}

pub struct Frame<'a> {
    bytes: &'a [u8],
}

impl<'a> Frame<'a> {
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
}

impl fmt::Display for Frame<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.len())
    }
}

pub trait Codec {
    fn size(&self) -> usize;
    fn twice(&self) -> usize {
        self.size() * 2
    }
}

pub fn each(f: impl Fn(u8)) {
    f(1)
}

pub const fn three() -> u32 {
    3
}

mod inner {
    pub fn deep<T: Copy>(t: T) -> T {
        let help = "line one
// not a comment
line three";
        let _ = help;
        t
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn works() {
        assert_eq!(super::encode(1), 2);
    }
}
"#;

    fn function<'a>(source: &'a Source, path: &str) -> &'a Function {
        source
            .functions()
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("no {path} in {:?}", source.functions()))
    }

    #[test]
    fn functions_have_paths_lines_from_their_attributes_and_generic_marks() {
        let source = Source::read(BASE).unwrap();
        let paths: Vec<&str> = source.functions().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "encode",
                "Frame<'a>::len",
                "<Frame<'_> as fmt::Display>::fmt",
                "Codec::twice",
                "each",
                "three",
                "inner::deep",
            ]
        );
        let encode = function(&source, "encode");
        assert_eq!(encode.lines, Lines { first: 6, last: 11 });
        assert!(!encode.generic && !encode.constant);
        assert!(
            !function(&source, "Frame<'a>::len").generic,
            "lifetimes only"
        );
        assert!(
            function(&source, "Codec::twice").generic,
            "a default method"
        );
        assert!(function(&source, "each").generic, "impl Trait argument");
        assert!(function(&source, "inner::deep").generic);
        assert!(function(&source, "three").constant);
        assert_eq!(
            source.in_literal,
            vec![Lines {
                first: 47,
                last: 48
            }]
        );
    }

    fn mapped(base: &str, head: &str, on_base: (u32, u32), on_head: (u32, u32)) -> Mapped {
        let base = Source::read(base).unwrap();
        let head = Source::read(head).unwrap();
        map(
            &base,
            &head,
            Range::from_header(on_base),
            Range::from_header(on_head),
        )
    }

    #[test]
    fn hunks_map_to_functions_items_or_nothing() {
        let edit = |from: &str, to: &str| BASE.replacen(from, to, 1);
        let body = edit("    x * 2\n", "    x * 3\n");
        assert_eq!(
            mapped(BASE, &body, (10, 1), (10, 1)),
            Mapped::Functions(vec!["encode".into()])
        );
        let attribute = edit("#[inline]\n", "#[inline(always)]\n");
        assert_eq!(
            mapped(BASE, &attribute, (7, 1), (7, 1)),
            Mapped::Functions(vec!["encode".into()])
        );
        let constant = edit("LIMIT: usize = 4", "LIMIT: usize = 5");
        assert_eq!(
            mapped(BASE, &constant, (4, 1), (4, 1)),
            Mapped::Everything("a constant")
        );
        let field = edit(
            "    bytes: &'a [u8],\n",
            "    bytes: &'a [u8],\n    more: u8,\n",
        );
        assert_eq!(
            mapped(BASE, &field, (15, 0), (16, 1)),
            Mapped::Everything("a type")
        );
        let import = edit("use std::fmt;", "use core::fmt;");
        assert_eq!(
            mapped(BASE, &import, (2, 1), (2, 1)),
            Mapped::Everything("an import")
        );
        let comment = edit("    // double it\n", "    // twice\n");
        assert_eq!(mapped(BASE, &comment, (9, 1), (9, 1)), Mapped::Inert);
        let doc = edit("/// Encodes.", "/// Encodes twice.");
        assert_eq!(
            mapped(BASE, &doc, (6, 1), (6, 1)),
            Mapped::Inert,
            "a doc comment of an item no macro reads"
        );
        let crate_doc = edit("//! A module.", "//! A module.\n//! More.");
        assert_eq!(mapped(BASE, &crate_doc, (1, 0), (2, 1)), Mapped::Inert);
        let beside_cfg_attr = "/*!\nA crate.\n*/\n#![cfg_attr(docsrs, feature(doc_cfg))]\n";
        let fixed = beside_cfg_attr.replace("A crate.", "The crate.");
        assert_eq!(
            mapped(beside_cfg_attr, &fixed, (2, 1), (2, 1)),
            Mapped::Inert,
            "no macro reads a file's inner attributes, whatever they are"
        );
        let must_use = edit("#[inline]\n", "#[inline]\n#[must_use] // why\n");
        assert_eq!(mapped(BASE, &must_use, (7, 0), (8, 1)), Mapped::Inert);
        let lints = edit(
            "pub struct Frame",
            "#[allow(\n    dead_code, /* a field */\n)]\n#[deprecated = \"x\"] #[must_use]\npub struct Frame",
        );
        assert_eq!(mapped(BASE, &lints, (12, 0), (13, 4)), Mapped::Inert);
        let beside_code = edit("pub fn len(&self)", "#[must_use] pub fn len(&self)");
        assert_eq!(
            mapped(BASE, &beside_code, (19, 1), (19, 1)),
            Mapped::Functions(vec!["Frame<'a>::len".into()]),
            "code on the attribute's line"
        );
        let inline = edit("#[inline]\n", "#[inline(never)]\n");
        assert_eq!(
            mapped(BASE, &inline, (7, 1), (7, 1)),
            Mapped::Functions(vec!["encode".into()]),
            "inline changes code"
        );
        let in_string = edit("// not a comment", "// not a comment!");
        assert_eq!(
            mapped(BASE, &in_string, (47, 1), (47, 1)),
            Mapped::Functions(vec!["inner::deep".into()])
        );
        let test = edit("super::encode(1), 2", "super::encode(2), 4");
        assert_eq!(mapped(BASE, &test, (58, 1), (58, 1)), Mapped::Inert);
        let konst = edit("    3\n", "    4\n");
        assert_eq!(
            mapped(BASE, &konst, (41, 1), (41, 1)),
            Mapped::Everything("a const fn (the compiler may run it while building)")
        );
        let trait_sig = edit("fn size(&self) -> usize;", "fn size(&self) -> u64;");
        assert_eq!(
            mapped(BASE, &trait_sig, (30, 1), (30, 1)),
            Mapped::Everything("a trait")
        );
        let renamed = edit("pub fn encode(x", "pub fn encode2(x");
        assert_eq!(
            mapped(BASE, &renamed, (8, 1), (8, 1)),
            Mapped::Everything("a function added, removed or renamed")
        );
        let added = format!("{BASE}\nfn extra() {{}}\n");
        assert_eq!(
            mapped(BASE, &added, (60, 0), (61, 2)),
            Mapped::Everything("a change across items")
        );
        let made_test = edit("#[inline]\n", "#[cfg(test)]\n#[inline]\n");
        assert_eq!(
            mapped(BASE, &made_test, (6, 0), (7, 1)),
            Mapped::Everything("a function added, removed or renamed"),
            "a function that became test-only is gone from bench builds"
        );
        let cfg = edit("#[inline]\n", "#[inline]\n#[cfg(feature = \"x\")]\n");
        assert_eq!(
            mapped(BASE, &cfg, (7, 0), (8, 1)),
            Mapped::Everything("a cfg attribute")
        );
    }

    #[test]
    fn attributes_a_macro_may_read_are_not_quiet() {
        const DERIVED: &str = "#[derive(Debug, clap::Parser)]
/// The arguments.
pub struct Args {
    /// How many.
    #[arg(long)]
    n: u32,
}

#[async_trait::async_trait]
impl Run for Args {
    /// Runs.
    async fn run(&self) {}
}

bitflags::bitflags! {
    /// The flags.
    pub struct Flags: u8 {
        /// One.
        const A = 1;
    }
}

/// Plain.
pub struct Plain {
    /// A field.
    #[cfg(feature = \"x\")]
    x: u8,
}
";
        let edit = |from: &str, to: &str| DERIVED.replacen(from, to, 1);
        for (from, to, line, why) in [
            (
                "/// The arguments.",
                "/// Arguments.",
                2,
                "a derive reads it",
            ),
            (
                "/// How many.",
                "/// How many times.",
                4,
                "a derive reads a field's",
            ),
            (
                "    /// Runs.",
                "    /// Runs it.",
                11,
                "an attribute macro reads it",
            ),
            (
                "/// One.",
                "/// The first.",
                18,
                "a macro invocation reads it",
            ),
        ] {
            let mapped = mapped(DERIVED, &edit(from, to), (line, 1), (line, 1));
            assert_ne!(mapped, Mapped::Inert, "{why}");
        }
        let plain = edit("    /// A field.", "    /// The field.");
        assert_eq!(mapped(DERIVED, &plain, (25, 1), (25, 1)), Mapped::Inert);
        let cfg = edit("feature = \"x\"", "feature = \"y\"");
        assert_eq!(
            mapped(DERIVED, &cfg, (26, 1), (26, 1)),
            Mapped::Everything("a type"),
            "cfg is not quiet"
        );
        let cfg_doc = edit(
            "/// Plain.",
            "/// Plain.\n#[cfg_attr(docsrs, doc = \"x\", must_use)]",
        );
        let cfg_doc_changed = cfg_doc.replace("doc = \"x\"", "doc = \"y\"");
        assert_eq!(
            mapped(&cfg_doc, &cfg_doc_changed, (24, 1), (24, 1)),
            Mapped::Inert,
            "a cfg_attr that adds only quiet attributes is quiet"
        );
        let cfg_derive = edit(
            "/// Plain.",
            "/// Plain.\n#[cfg_attr(feature = \"serde\", derive(Serialize))]",
        );
        let doc_changed = cfg_derive.replace("/// A field.", "/// The field.");
        assert_ne!(
            mapped(&cfg_derive, &doc_changed, (26, 1), (26, 1)),
            Mapped::Inert,
            "a cfg_attr may add a derive"
        );
        let block = edit("/// Plain.", "/** Plain,\n  a block. */");
        assert_eq!(mapped(DERIVED, &block, (23, 1), (23, 2)), Mapped::Inert);
    }

    #[test]
    fn a_parse_error_names_its_line_and_a_shebang_keeps_the_numbers() {
        let (line, message) = Source::read("fn a() {}\n\nfn b( {}\n").unwrap_err();
        assert_eq!(line, 3, "{message}");
        let source = Source::read("#!/usr/bin/env run-cargo-script\nfn a() {\n}\n").unwrap();
        assert_eq!(source.functions()[0].lines, Lines { first: 2, last: 3 });
    }
}
