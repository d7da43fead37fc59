//! The layers of docs/architecture.md, checked on the source: no module uses one in a layer
//! it may not use, and no two modules use each other (directly or round a longer cycle;
//! a folder's `mod.rs` and its modules count as one part).
//!
//! Every module file of the library (from `src/lib.rs`) and the program (from
//! `src/main.rs`) is parsed with syn; test code (`#[cfg(test)]`) is left out. A module uses
//! another when one of its `use` declarations or paths (`crate::…`, `super::…`, a name it
//! imported) leads into it; a name a module only passes on (`pub use`) is followed to where
//! it is defined, so that re-exports make no edges of their own.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path as FilePath, PathBuf},
};

use syn::visit::Visit;

/// A module's absolute path: the crate ("othello" or "bin") and the modules inside it.
type ModPath = Vec<String>;

/// The layer a module is in: the crate and its top module (`othello::engine`, `bin::server`).
fn layer(module: &ModPath) -> String {
    module
        .iter()
        .take(2)
        .cloned()
        .collect::<Vec<_>>()
        .join("::")
}

/// The layers each layer may use besides itself (the table in docs/architecture.md).
fn allowed(layer: &str) -> Option<&'static [&'static str]> {
    const LIBRARY: &[&str] = &[
        "othello",
        "othello::core",
        "othello::formats",
        "othello::engine",
        "othello::arena",
        "othello::analysis",
        "othello::training",
        "othello::process",
        "othello::protocol",
        "othello::grading",
    ];
    /// What the front ends of the binary may use: the library, and its own helpers.
    const FRONT_END: &[&str] = &[
        "othello",
        "othello::core",
        "othello::formats",
        "othello::engine",
        "othello::arena",
        "othello::analysis",
        "othello::training",
        "othello::process",
        "othello::protocol",
        "othello::grading",
        "bin::files",
        "bin::words",
    ];
    Some(match layer {
        "othello" | "bin" => &["*"],
        "othello::core" => &["othello"],
        "othello::formats" | "othello::engine" => &["othello", "othello::core"],
        // Beside the engine: matches and Elo ratings, analysis for people, training.
        "othello::arena" | "othello::training" => &["othello", "othello::core", "othello::engine"],
        // Analysis for people also writes and reads their positions (a puzzle's OBF).
        "othello::analysis" => &[
            "othello",
            "othello::core",
            "othello::formats",
            "othello::engine",
        ],
        "othello::process" => &["othello", "othello::formats"],
        "othello::protocol" => &[
            "othello",
            "othello::core",
            "othello::formats",
            "othello::engine",
        ],
        "othello::grading" => &[
            "othello",
            "othello::core",
            "othello::formats",
            "othello::engine",
            "othello::process",
            "othello::protocol",
        ],
        "bin::files" | "bin::words" => LIBRARY,
        // The seats' `Occupant` is the engine's: the server no longer needs the console game.
        "bin::play" | "bin::nboard" | "bin::tournament" | "bin::server" | "bin::bot" => FRONT_END,
        "bin::cli" => &["*"],
        _ => return None,
    })
}

/// What one module file says.
#[derive(Default)]
struct Module {
    file: PathBuf,
    /// Names its `use` declarations bring in, and the paths they stand for (as written).
    imports: BTreeMap<String, Vec<String>>,
    /// Every path it uses (from `use` declarations and code), as written.
    paths: Vec<Vec<String>>,
}

/// Whether `attrs` mark test-only code.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// `items` without the test-only ones (also inside inline modules and impl blocks).
fn without_tests(items: Vec<syn::Item>) -> Vec<syn::Item> {
    items
        .into_iter()
        .filter_map(|item| {
            let attrs = match &item {
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Impl(i) => &i.attrs,
                syn::Item::Mod(m) => &m.attrs,
                syn::Item::Use(u) => &u.attrs,
                syn::Item::Struct(s) => &s.attrs,
                syn::Item::Enum(e) => &e.attrs,
                syn::Item::Const(c) => &c.attrs,
                syn::Item::Static(s) => &s.attrs,
                syn::Item::Trait(t) => &t.attrs,
                syn::Item::Type(t) => &t.attrs,
                syn::Item::Macro(m) => &m.attrs,
                _ => return Some(item),
            };
            if is_test(attrs) {
                return None;
            }
            Some(match item {
                syn::Item::Impl(mut block) => {
                    block.items.retain(|item| match item {
                        syn::ImplItem::Fn(f) => !is_test(&f.attrs),
                        syn::ImplItem::Const(c) => !is_test(&c.attrs),
                        _ => true,
                    });
                    syn::Item::Impl(block)
                }
                syn::Item::Mod(mut module) => {
                    if let Some((brace, items)) = module.content.take() {
                        module.content = Some((brace, without_tests(items)));
                    }
                    syn::Item::Mod(module)
                }
                other => other,
            })
        })
        .collect()
}

/// Every (name, path) a `use` tree brings in; globs bring in `*`.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let ident = name.ident.to_string();
            if ident == "self" {
                out.push((prefix.last().cloned().unwrap_or_default(), prefix.clone()));
            } else {
                let mut path = prefix.clone();
                path.push(ident.clone());
                out.push((ident, path));
            }
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            let ident = rename.ident.to_string();
            if ident != "self" {
                path.push(ident);
            }
            out.push((rename.rename.to_string(), path));
        }
        syn::UseTree::Glob(_) => out.push(("*".into(), prefix.clone())),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}

/// Collects the paths of code (not of `use` declarations, read separately).
struct Paths<'a>(&'a mut Vec<Vec<String>>);

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 || path.leading_colon.is_none() {
            self.0
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    /// `pub(crate)`, `pub(super)`: who may see an item, not a use.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// Reads the module at `file` (path `module`) and, through its `mod name;` items, every
/// module below it.
fn read_tree(file: &FilePath, module: ModPath, modules: &mut BTreeMap<ModPath, Module>) {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let items = without_tests(parsed.items);
    let mut info = Module {
        file: file.to_owned(),
        ..Module::default()
    };
    // Children live beside a root or `mod.rs`, else in a folder named after the file.
    let name = file.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = if ["lib", "main", "mod"].contains(&name.as_str()) {
        file.parent().unwrap().to_owned()
    } else {
        file.parent().unwrap().join(&name)
    };
    let mut children = Vec::new();
    collect(&items, &mut info, &mut children);
    modules.insert(module.clone(), info);
    for child in children {
        let flat = dir.join(format!("{child}.rs"));
        let folder = dir.join(&child).join("mod.rs");
        let file = if flat.exists() { flat } else { folder };
        let mut path = module.clone();
        path.push(child);
        read_tree(&file, path, modules);
    }
}

/// Reads `items` into `info`; names the modules declared in other files.
fn collect(items: &[syn::Item], info: &mut Module, children: &mut Vec<String>) {
    for item in items {
        match item {
            syn::Item::Use(declaration) => {
                let mut pairs = Vec::new();
                flatten(&declaration.tree, &mut Vec::new(), &mut pairs);
                // A re-export is not a use: the names it passes on are followed instead.
                let used = matches!(declaration.vis, syn::Visibility::Inherited);
                for (name, path) in pairs {
                    if used {
                        info.paths.push(path.clone());
                    }
                    if name != "*" {
                        info.imports.insert(name, path);
                    }
                }
            }
            syn::Item::Mod(module) => match &module.content {
                None => children.push(module.ident.to_string()),
                // An inline module counts as part of its file.
                Some((_, items)) => collect(items, info, children),
            },
            other => Paths(&mut info.paths).visit_item(other),
        }
    }
}

/// Where `path`, written in `module`, leads: the module that defines what it names (following
/// imports and re-exports), or `None` for another crate, the standard library or a local name.
fn resolve(
    modules: &BTreeMap<ModPath, Module>,
    module: &ModPath,
    path: &[String],
    hops: usize,
) -> Option<ModPath> {
    if hops > 16 || path.is_empty() {
        return None;
    }
    let root = vec![module[0].clone()];
    let mut base: ModPath;
    let mut rest = path;
    match path[0].as_str() {
        "crate" => {
            base = root;
            rest = &path[1..];
        }
        "othello" if module[0] == "bin" => {
            base = vec!["othello".to_owned()];
            rest = &path[1..];
        }
        "self" => {
            base = module.clone();
            rest = &path[1..];
        }
        "super" => {
            base = module.clone();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        first => {
            let mut child = module.clone();
            child.push(first.to_owned());
            if modules.contains_key(&child) {
                base = module.clone();
            } else {
                let imported = modules.get(module)?.imports.get(first)?;
                // `use x::y` in the module itself: read `x` from the module's parent scope.
                if imported.as_slice() == path {
                    return None;
                }
                let mut full = imported.clone();
                full.extend_from_slice(&path[1..]);
                return resolve(modules, module, &full, hops + 1);
            }
        }
    }
    // The longest prefix that is a module; past it, a name the module imports or defines.
    while let Some(next) = rest.first() {
        let mut child = base.clone();
        child.push(next.clone());
        if !modules.contains_key(&child) {
            break;
        }
        base = child;
        rest = &rest[1..];
    }
    if let Some(name) = rest.first()
        && let Some(imported) = modules.get(&base).and_then(|m| m.imports.get(name))
    {
        let mut full = imported.clone();
        full.extend_from_slice(&rest[1..]);
        return resolve(modules, &base, &full, hops + 1).or(Some(base));
    }
    Some(base)
}

/// Every module's uses of other modules.
fn graph() -> (
    BTreeMap<ModPath, Module>,
    BTreeMap<ModPath, BTreeSet<ModPath>>,
) {
    let src = FilePath::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    read_tree(&src.join("lib.rs"), vec!["othello".into()], &mut modules);
    read_tree(&src.join("main.rs"), vec!["bin".into()], &mut modules);
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (module, info) in &modules {
        let uses = edges.entry(module.clone()).or_default();
        for path in &info.paths {
            if let Some(target) = resolve(&modules, module, path, 0)
                && &target != module
            {
                uses.insert(target);
            }
        }
    }
    (modules, edges)
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a ModPath) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

fn name(module: &ModPath) -> String {
    module.join("::")
}

#[test]
fn every_module_uses_only_the_layers_it_may() {
    let (modules, edges) = graph();
    let mut wrong = Vec::new();
    for (module, targets) in &edges {
        let from = layer(module);
        let may = allowed(&from).unwrap_or_else(|| panic!("{from} is in no layer"));
        for target in targets {
            let to = layer(target);
            if to != from && !may.contains(&"*") && !may.contains(&to.as_str()) {
                wrong.push(format!(
                    "{} ({}) uses {}",
                    name(module),
                    modules[module].file.display(),
                    name(target)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "layers crossed:\n{}", wrong.join("\n"));
}

/// A folder's `mod.rs` and the modules in it are one part: the modules use the folder's
/// shared items, and the folder's own code uses its modules (`Record` in `record/mod.rs`
/// and its formats, say). Cycles are looked for between parts: siblings, and modules of
/// different folders.
#[test]
fn no_two_modules_use_each_other() {
    let (_, mut edges) = graph();
    for (from, targets) in &mut edges {
        targets.retain(|to| !from.starts_with(to) && !to.starts_with(from));
    }
    let found: Vec<String> = cycles(&edges)
        .iter()
        .map(|component| {
            let names: Vec<String> = component.iter().map(name).collect();
            let uses: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    edges[from]
                        .iter()
                        .filter(|to| component.contains(to))
                        .map(move |to| format!("  {} -> {}", name(from), name(to)))
                })
                .collect();
            format!("{}\n{}", names.join(", "), uses.join("\n"))
        })
        .collect();
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

/// The checker itself: it sees the uses it must (so that an empty report means something).
#[test]
fn the_graph_sees_uses_through_imports_and_re_exports() {
    let (_, edges) = graph();
    let path = |text: &str| -> ModPath { text.split("::").map(str::to_owned).collect() };
    let uses = |from: &str, to: &str| edges[&path(from)].contains(&path(to));
    // `use super::{super::{Node, ..}, ..}`: Node is re-exported by engine, defined in node.rs.
    assert!(uses(
        "othello::engine::search::midgame",
        "othello::engine::node"
    ));
    assert!(uses(
        "othello::engine::search::midgame",
        "othello::engine::search::pvs"
    ));
    // The solver orders its moves with the midgame search; never the other way round.
    assert!(uses(
        "othello::engine::search::endgame",
        "othello::engine::search::midgame"
    ));
    assert!(!uses(
        "othello::engine::search::midgame",
        "othello::engine::search::endgame"
    ));
    // The program reaches the library through `othello::` and its flat re-exports.
    assert!(uses("bin::server::table", "othello::core::color"));
    // A parent's `pub use` of its child makes no edge.
    assert!(!uses("othello::engine", "othello::engine::search"));
    assert!(edges.len() > 100, "{} modules", edges.len());
}

/// One decision between searching and solving: the engine's moves, the rankings for people
/// and the search the engine's users run all ask `engine/search/plan.rs`.
#[test]
fn one_module_decides_between_searching_and_solving() {
    let (_, edges) = graph();
    let path = |text: &str| -> ModPath { text.split("::").map(str::to_owned).collect() };
    let plan = path("othello::engine::search::plan");
    for asker in [
        "othello::engine::player",
        "othello::analysis",
        "othello::engine::search::deepening",
    ] {
        assert!(edges[&path(asker)].contains(&plan), "{asker}");
    }
}
