//! No module imports one that imports it back: in every library and binary crate of the
//! workspace, the files form an import graph without circles, so data flows one way and each
//! file can be read knowing only the files below it.
//!
//! The graph is read from the code with `syn`, file by file: every path that starts with
//! `crate::`, `super::` or `self::`, or with the name of a child module (in `use` items, in
//! expressions and types, and in the tokens of macro calls such as `format!` or `tell!`),
//! resolved to the file that defines what it names. A name the target re-exports (`pub use`)
//! is followed to where it is defined, so `use crate::Error` is an arrow to the error module,
//! not to the crate root. A module's use of its own folder's front file (`super::Item` in
//! `a/b.rs`, declared by `a/mod.rs`) is an arrow into its own folder and is not counted (a
//! folder is one room, as an import-graph view draws it); every other arrow is, between
//! siblings, across folders and from a folder's front to any file. Tests are not read (`#[cfg(test)]` items and the files they declare):
//! a test may reach into any module it checks.
//!
//! `syn` rather than an existing tool: the graph tools for Rust (cargo-modules and the like)
//! build the crate through rust-analyzer, a dependency far heavier than this check, and none
//! fails a test; the workspace already builds `syn` for code generation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path from its crate root (`[]` is the root itself).
type ModPath = Vec<String>;

/// One file of a crate: its module path and what it parses to.
struct ModFile {
    path: PathBuf,
    module: ModPath,
    ast: syn::File,
}

/// A crate's files, by module path.
struct Crate {
    files: BTreeMap<ModPath, ModFile>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root")
        .to_path_buf()
}

/// Whether the attributes put the item under `#[cfg(test)]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string() == "test")
    })
}

/// The `#[path = "…"]` of a `mod` declaration, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

/// Reads the crate whose root file is `root`, following its `mod name;` declarations.
fn read_crate(root: &Path) -> Crate {
    let mut files = BTreeMap::new();
    // (file, its module path, the directory its child modules live in)
    let mut queue = vec![(
        root.to_path_buf(),
        ModPath::new(),
        root.parent().unwrap().to_path_buf(),
    )];
    while let Some((path, module, dir)) = queue.pop() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        declared_modules(&ast.items, &module, &dir, &mut queue);
        files.insert(module.clone(), ModFile { path, module, ast });
    }
    Crate { files }
}

/// Queues the files of the `mod name;` declarations among `items` (inline modules are
/// searched too: their file children live in a folder of their name).
fn declared_modules(
    items: &[syn::Item],
    module: &ModPath,
    dir: &Path,
    queue: &mut Vec<(PathBuf, ModPath, PathBuf)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_test_only(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        let mut child = module.clone();
        child.push(name.clone());
        if let Some((_, inline)) = &m.content {
            declared_modules(inline, &child, &dir.join(&name), queue);
            continue;
        }
        let (file, child_dir) = match path_attr(&m.attrs) {
            Some(p) => {
                let file = dir.join(p);
                let child_dir = file.with_extension("");
                (file, child_dir)
            }
            None if dir.join(format!("{name}.rs")).is_file() => {
                (dir.join(format!("{name}.rs")), dir.join(&name))
            }
            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
        };
        queue.push((file, child, child_dir));
    }
}

/// The paths a file names, each as written: its segments, and the module it was written in
/// (an inline module's path, inside the file).
struct Names {
    current: ModPath,
    found: Vec<(ModPath, Vec<String>)>,
}

impl Names {
    fn add(&mut self, mut segments: Vec<String>) {
        // `use a::{self}` names `a`.
        if segments.len() > 1 && segments.last().is_some_and(|s| s == "self") {
            segments.pop();
        }
        if !segments.is_empty() {
            self.found.push((self.current.clone(), segments));
        }
    }
}

/// Every full path of a `use` tree (a group gives one path per member; a glob ends in `*`).
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Glob(_) => {
            let mut path = prefix.clone();
            path.push("*".into());
            out.push(path);
        }
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_paths(tree, prefix, out);
            }
        }
    }
}

/// The `crate::a::b`, `super::c` and `self::d` paths in a macro call's tokens.
fn token_paths(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => token_paths(g.stream(), out),
            TokenTree::Ident(id)
                if ["crate", "super", "self"].contains(&id.to_string().as_str()) =>
            {
                // Skip `$crate`: the macro's own crate, written where it is defined.
                let after_dollar =
                    i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                let mut path = vec![id.to_string()];
                let mut j = i + 1;
                // Each further `:: ident`, while the path goes on.
                loop {
                    let colons = matches!(&tokens.get(j), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                        && matches!(&tokens.get(j + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    match (colons, tokens.get(j + 2)) {
                        (true, Some(TokenTree::Ident(next))) => {
                            path.push(next.to_string());
                            j += 3;
                        }
                        _ => break,
                    }
                }
                if path.len() > 1 && !after_dollar {
                    out.push(path);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_none() {
            return;
        }
        self.current.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.current.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut out = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut out);
        for path in out {
            self.add(path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.add(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(super)`, `pub(in crate::a)`: who may see an item, not an import.
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Code that a macro quotes is code for another crate (code generation), not this one's.
        if ["quote", "quote_spanned", "parse_quote"]
            .iter()
            .any(|name| mac.path.is_ident(name))
        {
            return;
        }
        let mut out = Vec::new();
        token_paths(mac.tokens.clone(), &mut out);
        for path in out {
            self.add(path);
        }
        syn::visit::visit_macro(self, mac);
    }
}

impl Crate {
    /// The file that owns `module` (the longest module path of a file that prefixes it).
    fn owner(&self, module: &[String]) -> Option<&ModFile> {
        (0..=module.len())
            .rev()
            .find_map(|n| self.files.get(&module[..n]))
    }

    /// Whether `module` is a module of the crate (a file's, or an inline one's).
    fn is_module(&self, module: &[String]) -> bool {
        self.files.contains_key(module)
            || self
                .files
                .values()
                .any(|f| inline_module(&f.ast.items, &f.module, module))
    }

    /// `segments`, written in module `current`, as a path from the crate root; `None` for a
    /// path that leaves the crate (another crate, the standard library, a local name).
    fn absolute(&self, current: &[String], segments: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = current.to_vec();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            // A child module named without `self::` (`mod a; use a::B;`).
            Some(first) => {
                let mut child = base.clone();
                child.push(first.to_string());
                if !self.is_module(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file where the item `absolute` names is defined, following re-exports (`pub use`)
    /// of the module it lands in. `None` for a path outside the crate.
    fn defining_file(&self, absolute: &[String], depth: usize) -> Option<&ModFile> {
        let owner = self.owner(absolute)?;
        let rest = &absolute[owner.module.len()..];
        // A name the owning file imports rather than defines: where it comes from.
        if depth < 8
            && let Some(name) = rest.first()
            && !defines(&owner.ast.items, name)
        {
            let mut names = Names {
                current: owner.module.clone(),
                found: Vec::new(),
            };
            for item in &owner.ast.items {
                if let syn::Item::Use(u) = item
                    && !is_test_only(&u.attrs)
                {
                    names.visit_item_use(u);
                }
            }
            for (current, segments) in &names.found {
                let imported_as = segments.last().map(String::as_str);
                if imported_as == Some(name.as_str())
                    && let Some(mut target) = self.absolute(current, segments)
                {
                    target.extend(rest[1..].iter().cloned());
                    return self.defining_file(&target, depth + 1).or(Some(owner));
                }
            }
            // Else a glob (`pub use generated::*`) may bring it: the first module of the
            // crate that defines it.
            for (current, segments) in &names.found {
                if segments.last().is_some_and(|s| s == "*")
                    && let Some(mut target) =
                        self.absolute(current, &segments[..segments.len() - 1])
                    && let Some(module) = self.files.get(&target)
                    && defines(&module.ast.items, name)
                {
                    target.extend(rest.iter().cloned());
                    return self.defining_file(&target, depth + 1).or(Some(owner));
                }
            }
        }
        Some(owner)
    }

    /// Every arrow between two files of the crate: which file names which, and one path that
    /// shows it.
    fn arrows(&self) -> BTreeMap<(PathBuf, PathBuf), String> {
        let mut arrows = BTreeMap::new();
        for file in self.files.values() {
            let mut names = Names {
                current: file.module.clone(),
                found: Vec::new(),
            };
            names.visit_file(&file.ast);
            for (current, segments) in names.found {
                if segments.last().is_some_and(|s| s == "*") {
                    let module = &segments[..segments.len() - 1];
                    if let Some(target) = self.absolute(&current, module)
                        && let Some(to) = self.owner(&target)
                        && to.path != file.path
                        && !is_ancestor(&to.module, &file.module)
                    {
                        arrows
                            .entry((file.path.clone(), to.path.clone()))
                            .or_insert_with(|| segments.join("::"));
                    }
                    continue;
                }
                let Some(target) = self.absolute(&current, &segments) else {
                    continue;
                };
                if let Some(to) = self.defining_file(&target, 0)
                    && to.path != file.path
                    && !is_ancestor(&to.module, &file.module)
                {
                    arrows
                        .entry((file.path.clone(), to.path.clone()))
                        .or_insert_with(|| segments.join("::"));
                }
            }
        }
        arrows
    }
}

/// Whether `ancestor` declares `module`, directly or through its children: a module's use of
/// its own folder's front file (`super::Item` in `a/b.rs`, from `a/mod.rs`) is an arrow into
/// its own folder, which the folder's front declares and shares; it is not counted, as in an
/// import-graph view that draws a folder as one room. Every other arrow is.
fn is_ancestor(ancestor: &[String], module: &[String]) -> bool {
    ancestor.len() < module.len() && module.starts_with(ancestor)
}

/// Whether `module` is an inline module (`mod a { … }`) inside the items of file module `at`.
fn inline_module(items: &[syn::Item], at: &[String], module: &[String]) -> bool {
    items.iter().any(|item| {
        let syn::Item::Mod(m) = item else {
            return false;
        };
        let Some((_, inner)) = &m.content else {
            return false;
        };
        let mut here = at.to_vec();
        here.push(m.ident.to_string());
        here == module || inline_module(inner, &here, module)
    })
}

/// Whether the items define `name` themselves (not through a `use`).
fn defines(items: &[syn::Item], name: &str) -> bool {
    items.iter().any(|item| {
        let ident = match item {
            syn::Item::Const(i) => &i.ident,
            syn::Item::Enum(i) => &i.ident,
            syn::Item::Fn(i) => &i.sig.ident,
            syn::Item::Mod(i) => &i.ident,
            syn::Item::Static(i) => &i.ident,
            syn::Item::Struct(i) => &i.ident,
            syn::Item::Trait(i) => &i.ident,
            syn::Item::Type(i) => &i.ident,
            syn::Item::Union(i) => &i.ident,
            syn::Item::Macro(i) => match &i.ident {
                Some(ident) => ident,
                None => return false,
            },
            _ => return false,
        };
        ident == name
    })
}

/// The circles of a graph: its strongly connected components of more than one file (Tarjan).
fn circles(arrows: &BTreeMap<(PathBuf, PathBuf), String>) -> Vec<Vec<PathBuf>> {
    let mut next: BTreeMap<&PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    struct State<'a> {
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn connect<'a>(
        node: &'a PathBuf,
        next: &BTreeMap<&'a PathBuf, Vec<&'a PathBuf>>,
        s: &mut State<'a>,
    ) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &to in &next[node] {
            if !s.index.contains_key(to) {
                connect(to, next, s);
                let low = s.low[node].min(s.low[to]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(to) {
                let low = s.low[node].min(s.index[to]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in next.keys() {
        if !state.index.contains_key(node) {
            connect(node, &next, &mut state);
        }
    }
    state.found
}

/// Every crate root of the workspace's library and binary crates (generated code included:
/// it is a crate like the others).
fn crate_roots() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut roots = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .collect();
    dirs.push(root.join("xtask/src"));
    dirs.sort();
    for dir in dirs {
        for name in ["lib.rs", "main.rs"] {
            if dir.join(name).is_file() {
                roots.push(dir.join(name));
            }
        }
    }
    roots
}

/// The circles of each crate, described for a person: the files, and what ties each to the
/// next.
fn described_circles(root: &Path) -> Vec<String> {
    let krate = read_crate(root);
    let arrows = krate.arrows();
    let base = workspace_root();
    let show = |p: &Path| p.strip_prefix(&base).unwrap_or(p).display().to_string();
    circles(&arrows)
        .into_iter()
        .map(|files| {
            let ties: Vec<String> = arrows
                .iter()
                .filter(|((from, to), _)| files.contains(from) && files.contains(to))
                .map(|((from, to), via)| format!("    {} -> {} ({via})", show(from), show(to)))
                .collect();
            format!(
                "circle of {} files in the crate of {}:\n{}",
                files.len(),
                show(root),
                ties.join("\n")
            )
        })
        .collect()
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let roots = crate_roots();
    assert!(roots.len() >= 10, "found only {roots:?}");
    let found: Vec<String> = roots.iter().flat_map(|r| described_circles(r)).collect();
    assert!(
        found.is_empty(),
        "{} import circles (a module that imports one that imports it back; move what both \
         need into a module below both):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The check sees a circle written on purpose, through each kind of path it reads.
#[test]
fn a_circle_written_on_purpose_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("b")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\nmod d;\npub use a::Thing;\n#[cfg(test)]\nmod tests { use crate::d::*; }\n",
    );
    // a -> b through a `use` of a re-export, b -> a through a macro's tokens.
    write("a.rs", "use crate::b::Other;\npub struct Thing;\n");
    write("b/mod.rs", "mod inner;\npub use inner::Other;\n");
    write(
        "b/inner.rs",
        "pub struct Other;\nfn f() { let _ = format!(\"{:?}\", crate::Thing); }\n",
    );
    // c and d: no circle (c -> d only; d's test-only code names c).
    write("c.rs", "pub fn c() { super::d::d() }\n");
    write(
        "d.rs",
        "pub fn d() {}\n#[cfg(test)]\nfn t() { crate::c::c() }\n",
    );
    let found = described_circles(&src.join("lib.rs"));
    assert_eq!(found.len(), 1, "{found:#?}");
    let circle = &found[0];
    assert!(
        circle.contains("a.rs -> ") && circle.contains("b/inner.rs (crate::b::Other)"),
        "{circle}"
    );
    assert!(
        circle.contains("b/inner.rs -> ") && circle.contains("a.rs (crate::Thing)"),
        "{circle}"
    );
    assert!(
        !circle.contains("c.rs") && !circle.contains("d.rs"),
        "{circle}"
    );
}
