//! Finding the files to chunk: `ignore`'s parallel walker, then sorted by relative path.
//!
//! Every entry under the root ends in the list: files to read, and entries that are not read
//! with the reason (a link, a FIFO, an ignored or hidden file, cleave's own output, a folder
//! that could not be read). Nothing outside the root is walked: links are not followed unless
//! asked, and then only to targets inside the root.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::marks::{is_cleave_output_dir, is_cleave_output_file, is_cleave_temp};
use crate::outcome::Skip;

/// An entry of the walk: a file to read, or an entry with the reason it is not read.
#[derive(Debug, Clone)]
pub struct Input {
    /// Path relative to the walked root, `/` separators (the file name for a single file).
    pub rel: String,
    /// Path to open.
    pub abs: PathBuf,
    /// Size in bytes when walked (0 if unknown).
    pub size: u64,
    /// Whether the path may be a link to follow (a followed link, or the file the user named).
    pub follow: bool,
    /// Device and inode seen by the walk, to check the file read is the file walked.
    pub id: Option<(u64, u64)>,
    /// The walked root, canonical: what is read must lie inside it. `None` for a single file.
    pub root: Option<Arc<Path>>,
    /// Set when the entry is not to be read, with the reason.
    pub skip: Option<Skip>,
    /// The walk's root (the `Arc` `root` was set to) and where in `abs` the entry's path below
    /// it starts: what `read` opens beneath the root. Callers may rename `rel` or point `root`
    /// elsewhere; this is used only while `root` is still that same `Arc`.
    pub(crate) below: Option<(Arc<Path>, usize)>,
}

/// How to walk.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Also walk hidden files and folders.
    pub hidden: bool,
    /// Do not honour `.gitignore`, `.ignore` and similar files.
    pub no_ignore: bool,
    /// Follow symbolic links whose target lies inside the root.
    pub follow: bool,
    /// Paths left out of the walk (cleave's own outputs); compared after canonicalisation.
    pub exclude: Vec<PathBuf>,
    /// Walker threads (0: one).
    pub threads: usize,
}

/// What the walk found, sorted by `rel`.
#[derive(Debug, Default)]
pub struct Walked {
    /// Every entry: files to read and skipped entries.
    pub entries: Vec<Input>,
}

/// Walks `root`, a file or a folder. Errors only when `root` itself cannot be read or is
/// neither a file nor a folder; every entry below it gets an [`Input`], read or not.
pub fn walk(root: &Path, options: &WalkOptions) -> std::io::Result<Walked> {
    let meta = std::fs::metadata(root)?;
    if meta.is_file() {
        let rel = root.file_name().map_or_else(|| root.to_string_lossy(), |n| n.to_string_lossy());
        let file = Input {
            rel: rel.into_owned(),
            abs: root.to_owned(),
            size: meta.len(),
            follow: true,
            id: file_id(&meta),
            root: None,
            skip: None,
            below: None,
        };
        return Ok(Walked { entries: vec![file] });
    }
    if !meta.is_dir() {
        let what = match Skip::not_regular(&meta) {
            Some(Skip::NotRegular(what)) => what,
            _ => "special file",
        };
        return Err(std::io::Error::other(format!("not a file or a folder ({what})")));
    }
    let canonical: Arc<Path> = std::fs::canonicalize(root)?.into();
    let exclude = exclusions(root, &canonical, &options.exclude);
    walk_dir(root, &canonical, &exclude, options)
}

/// The excluded paths as the walker will spell them: the root as given, joined with each
/// excluded path's place under the canonical root.
fn exclusions(root: &Path, canonical: &Path, exclude: &[PathBuf]) -> HashSet<PathBuf> {
    exclude
        .iter()
        .filter_map(|p| p.strip_prefix(canonical).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| root.join(rel))
        .collect()
}

#[derive(Default)]
struct Found {
    entries: Vec<Input>,
    /// Every path the walker yielded (files, folders, links, errors).
    seen: HashSet<PathBuf>,
    dirs: Vec<PathBuf>,
}

fn walk_dir(
    root: &Path,
    canonical: &Arc<Path>,
    exclude: &HashSet<PathBuf>,
    options: &WalkOptions,
) -> std::io::Result<Walked> {
    let mut builder = walker(root, canonical, exclude, options, None);
    builder.threads(options.threads.max(1));
    let found = Mutex::new(Found::default());
    builder.build_parallel().run(|| {
        Box::new(|entry| {
            let input = match entry {
                Ok(entry) => {
                    let mut found = found.lock().unwrap_or_else(PoisonError::into_inner);
                    found.seen.insert(entry.path().to_owned());
                    if entry.depth() == 0 {
                        found.dirs.push(entry.into_path());
                        return ignore::WalkState::Continue;
                    }
                    drop(found);
                    entry_input(entry, root, canonical, options.follow)
                }
                Err(err) => {
                    let (path, reason) = error_skip(&err);
                    let rel = path.as_deref().map_or_else(String::new, |p| relative(root, p));
                    let mut found = found.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(p) = path {
                        found.seen.insert(p);
                    }
                    let input = Input {
                        rel,
                        abs: PathBuf::new(),
                        size: 0,
                        follow: false,
                        id: None,
                        root: Some(canonical.clone()),
                        skip: Some(reason),
                        below: None,
                    };
                    Some(Seen::Entry(input))
                }
            };
            let mut found = found.lock().unwrap_or_else(PoisonError::into_inner);
            match input {
                Some(Seen::Dir(dir)) => found.dirs.push(dir),
                Some(Seen::Entry(input)) => found.entries.push(input),
                None => {}
            }
            ignore::WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    // Entries the walker passed over: ignored, hidden, version control, outputs.
    let mut unseen = Vec::new();
    for dir in &found.dirs {
        let Ok(read) = std::fs::read_dir(dir) else { continue };
        for child in read.flatten() {
            let path = child.path();
            if found.seen.contains(&path) {
                continue;
            }
            let is_link = child.file_type().is_ok_and(|t| t.is_symlink());
            let reason = passed_over_reason(&path, is_link, exclude, canonical, options);
            unseen.push(skipped(relative(root, &path), path, canonical, reason));
        }
    }
    found.entries.extend(unseen);
    found.entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Walked { entries: found.entries })
}

/// Why the walker passed over the entry at `path`, which it did not yield though it exists.
fn passed_over_reason(
    path: &Path,
    is_link: bool,
    exclude: &HashSet<PathBuf>,
    canonical: &Path,
    options: &WalkOptions,
) -> Skip {
    let name = path.file_name().unwrap_or_default();
    if name == ".git" {
        Skip::VersionControl
    } else if exclude.contains(path)
        || is_cleave_temp(name)
        || is_cleave_output_dir(path)
        || is_cleave_output_file(path, canonical)
    {
        Skip::Output
    } else if is_link && options.follow {
        Skip::LinkOutsideRoot
    } else if name.to_string_lossy().starts_with('.') && !options.hidden {
        Skip::Hidden
    } else {
        Skip::Ignored
    }
}

/// The path an error of the walker is about, and the reason its entry is not read.
fn error_skip(err: &ignore::Error) -> (Option<PathBuf>, Skip) {
    let path = error_path(err).map(Path::to_owned);
    // A followed link to nothing is no read error: there is nothing to read. Nor is a link
    // in a loop: back to an ancestor, whose files the walk reads anyway, or through other
    // links to itself (its target then fails with ELOOP, not "no such file").
    let link = path
        .as_deref()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()));
    let target = link.map(std::fs::metadata);
    let reason = if is_loop(err) {
        Skip::LinkLoop
    } else if let Some(Err(e)) = &target {
        if is_eloop(e) { Skip::LinkLoop } else { Skip::BrokenLink }
    } else {
        Skip::Unreadable(error_message(err))
    };
    (path, reason)
}

/// Whether the walk of `root` with `options` passes over the entry at `rel` (relative to
/// `root`), or a folder on the way to it, and why: [`Skip::Hidden`], [`Skip::Ignored`],
/// [`Skip::VersionControl`] or [`Skip::Output`] (the entries [`walk`] lists with those
/// reasons, and never descends into), [`Skip::LinkOutsideRoot`] for a followed link leading
/// out, [`Skip::Symlink`] for a folder on the way that is a link not followed,
/// [`Skip::BrokenLink`] or [`Skip::Unreadable`] when the walk could not go on. `None` when the
/// walk reaches the entry (it may still list it as a skipped file: a link, a FIFO), when `rel`
/// is empty (the root itself) or names nothing.
///
/// The answer agrees with [`walk`] by construction: it is the same walker with the same rules
/// (ignore files here and above the root, hidden files, `.git`, cleave's outputs), run from
/// the same root along `rel` alone. `rel` holds names below the root (`.` parts are dropped); a
/// `..` or an absolute path is answered [`Skip::Unreadable`], never followed.
pub fn passed_over(root: &Path, rel: &Path, options: &WalkOptions) -> Option<Skip> {
    let mut names = Vec::new();
    for part in rel.components() {
        match part {
            Component::Normal(name) => names.push(name.to_owned()),
            Component::CurDir => {}
            _ => {
                let why = format!("{} is not a path below the walked root", rel.display());
                return Some(Skip::Unreadable(why));
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let canonical: Arc<Path> = match std::fs::canonicalize(root) {
        Ok(path) => path.into(),
        Err(err) => return Some(Skip::Unreadable(err.to_string())),
    };
    let exclude = exclusions(root, &canonical, &options.exclude);
    let depth = names.len();
    let mut builder = walker(root, &canonical, &exclude, options, Some(names.clone()));
    builder.max_depth(Some(depth));
    // The deepest entry on the path the walker yielded, and whether it is a folder it entered.
    let (mut reached, mut is_dir, mut is_link) = (0, true, false);
    let mut errors = Vec::new();
    for item in builder.build() {
        match item {
            Ok(entry) if entry.depth() > reached => {
                reached = entry.depth();
                is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                is_link = entry.file_type().is_some_and(|t| t.is_symlink());
            }
            Ok(_) => {}
            Err(err) => errors.push(error_skip(&err)),
        }
    }
    if reached == depth {
        return None;
    }
    if !is_dir {
        // The walk stops at a link it does not follow; past a file there is nothing.
        return is_link.then_some(Skip::Symlink);
    }
    let folder = names[..reached].iter().fold(root.to_owned(), |path, name| path.join(name));
    let path = folder.join(&names[reached]);
    // The folder could not be listed, or the entry not followed: the walk lists the error.
    let error =
        errors.into_iter().find(|(p, _)| p.as_ref().is_none_or(|p| *p == folder || *p == path));
    if let Some((_, reason)) = error {
        return Some(reason);
    }
    let meta = std::fs::symlink_metadata(&path).ok()?;
    let is_link = meta.file_type().is_symlink();
    Some(passed_over_reason(&path, is_link, &exclude, &canonical, options))
}

/// The walker of `root` with the walk's rules: ignore files, hidden files, `.git`, cleave's
/// temps and outputs, links. [`walk`] runs it over the whole root; [`passed_over`] runs it
/// along one path only (`on_path`: the names below the root, one per depth, an entry being
/// kept only when it is the next name), so that both answer by the same rules.
fn walker(
    root: &Path,
    canonical: &Arc<Path>,
    exclude: &HashSet<PathBuf>,
    options: &WalkOptions,
    on_path: Option<Vec<OsString>>,
) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    let (exclude, canonical) = (exclude.clone(), canonical.clone());
    let follow = options.follow;
    // Through followed links an output can be reached by another path: compare what such
    // a path resolves to, for folders and for files named like an excluded one.
    let resolved: HashSet<PathBuf> =
        options.exclude.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
    let names: HashSet<OsString> =
        options.exclude.iter().filter_map(|p| p.file_name().map(ToOwned::to_owned)).collect();
    builder
        .standard_filters(!options.no_ignore)
        .hidden(!options.hidden)
        .require_git(false)
        .follow_links(follow)
        .filter_entry(move |e| {
            // Off the path asked about: not looked at (checked first, as it costs nothing).
            if let Some(on_path) = &on_path
                && e.depth() > 0
                && on_path.get(e.depth() - 1).is_none_or(|name| name != e.file_name())
            {
                return false;
            }
            if e.file_name() == ".git" || is_cleave_temp(e.file_name()) {
                return false;
            }
            if exclude.contains(e.path()) {
                return false;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && e.depth() > 0 && is_cleave_output_dir(e.path()) {
                return false;
            }
            // Earlier outputs written as files (JSON Lines, a JSON document, a report).
            if !is_dir
                && Path::new(e.file_name()).extension().is_some_and(|x| x == "jsonl" || x == "json")
                && is_cleave_output_file(e.path(), &canonical)
            {
                return false;
            }
            if follow
                && (is_dir || names.contains(e.file_name()))
                && std::fs::canonicalize(e.path()).is_ok_and(|p| resolved.contains(&p))
            {
                return false;
            }
            // A followed link must not lead outside the root.
            !(follow
                && e.path_is_symlink()
                && !std::fs::canonicalize(e.path()).is_ok_and(|p| p.starts_with(&*canonical)))
        });
    builder
}

fn skipped(rel: String, abs: PathBuf, root: &Arc<Path>, reason: Skip) -> Input {
    Input {
        rel,
        abs,
        size: 0,
        follow: false,
        id: None,
        root: Some(root.clone()),
        skip: Some(reason),
        below: None,
    }
}

/// What the walker yielded: an entry, or a folder whose unwalked children are listed later.
enum Seen {
    Entry(Input),
    Dir(PathBuf),
}

/// The input for one walked entry, or the folder to list afterwards.
fn entry_input(
    entry: ignore::DirEntry,
    root: &Path,
    canonical: &Arc<Path>,
    follow: bool,
) -> Option<Seen> {
    let file_type = entry.file_type()?;
    let is_link = entry.path_is_symlink();
    let path = entry.path().to_owned();
    if file_type.is_dir() {
        return Some(Seen::Dir(path));
    }
    let rel = relative(root, &path);
    if path.strip_prefix(root).ok().and_then(Path::to_str).is_none() {
        return Some(Seen::Entry(skipped(rel, path, canonical, Skip::NonUtf8Name)));
    }
    if file_type.is_symlink() {
        // Not followed (with --follow the walker resolves links to their targets' types).
        return Some(Seen::Entry(skipped(rel, path, canonical, Skip::Symlink)));
    }
    let meta = entry.metadata().ok();
    if let Some(skip) = meta.as_ref().and_then(Skip::not_regular) {
        return Some(Seen::Entry(skipped(rel, path, canonical, skip)));
    }
    let input = Input {
        below: path
            .strip_prefix(root)
            .ok()
            .map(|p| (canonical.clone(), path.as_os_str().len() - p.as_os_str().len())),
        rel,
        size: meta.as_ref().map_or(0, std::fs::Metadata::len),
        id: meta.as_ref().and_then(file_id),
        abs: path,
        follow: follow && is_link,
        root: Some(canonical.clone()),
        skip: None,
    };
    Some(Seen::Entry(input))
}

fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The path an error of the walker is about, looking inside its wrappers.
/// Whether resolving a link failed for too many levels of links (a cycle).
fn is_eloop(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// Whether the walker met a link back to a folder on its own path.
fn is_loop(err: &ignore::Error) -> bool {
    match err {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        ignore::Error::Partial(errs) => errs.iter().any(is_loop),
        _ => false,
    }
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// The message of an error without the path it names (the entry carries the path).
fn error_message(err: &ignore::Error) -> String {
    match err {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => error_message(err),
        other => other.to_string(),
    }
}

/// `path` relative to `root`, with `/` separators.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marks::GENERATOR;

    #[test]
    fn passed_over_agrees_with_the_walk() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write(".gitignore", "target\n/build.log\n");
        write(".env", "API_KEY=secret\n");
        write(".git/config", "[remote]\ntoken = x\n");
        write("target/out.txt", "built\n");
        write("build.log", "log\n");
        write("src/main.rs", "fn main() {}\n");
        write("src/.ignore", "local.txt\n");
        write("src/local.txt", "mine\n");
        write("src/sub/build.log", "not anchored here\n");
        write(".config/tool.toml", "x = 1\n");
        write("out/manifest.json", &format!("{GENERATOR}, \"files\": []}}\n"));
        write("out/chunks.jsonl", "{}\n");
        let options = WalkOptions::default();
        let over = |rel: &str| passed_over(root, Path::new(rel), &options);

        assert_eq!(over(".env"), Some(Skip::Hidden));
        assert_eq!(over(".config/tool.toml"), Some(Skip::Hidden));
        assert_eq!(over("target/out.txt"), Some(Skip::Ignored));
        assert_eq!(over("target"), Some(Skip::Ignored));
        assert_eq!(over("build.log"), Some(Skip::Ignored));
        assert_eq!(over("src/local.txt"), Some(Skip::Ignored));
        assert_eq!(over(".git/config"), Some(Skip::VersionControl));
        assert_eq!(over(".git"), Some(Skip::VersionControl));
        assert_eq!(over("out/chunks.jsonl"), Some(Skip::Output));
        assert_eq!(over("src/main.rs"), None);
        assert_eq!(over("./src/sub/build.log"), None);
        assert_eq!(over("src"), None);
        assert_eq!(over(""), None);
        assert_eq!(over("."), None);
        assert_eq!(over("missing.txt"), None);
        assert!(matches!(over("../x"), Some(Skip::Unreadable(_))));
        let hidden = WalkOptions { hidden: true, ..WalkOptions::default() };
        assert_eq!(passed_over(root, Path::new(".env"), &hidden), None);
        assert_eq!(
            passed_over(root, Path::new(".git/config"), &hidden),
            Some(Skip::VersionControl)
        );
        let unignored = WalkOptions { no_ignore: true, ..WalkOptions::default() };
        assert_eq!(passed_over(root, Path::new("target/out.txt"), &unignored), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("src"), root.join("link")).expect("link");
            assert_eq!(over("link/main.rs"), Some(Skip::Symlink));
            assert_eq!(over("link"), None, "the walk lists the link itself");
        }

        // Every entry the walk lists gets the walk's own answer, and so does what lies below.
        let walked = walk(root, &options).expect("walk");
        assert!(walked.entries.len() > 5);
        for entry in &walked.entries {
            let expected = match &entry.skip {
                Some(s @ (Skip::Hidden | Skip::Ignored | Skip::VersionControl | Skip::Output)) => {
                    Some(s.clone())
                }
                _ => None,
            };
            assert_eq!(over(&entry.rel), expected, "{}", entry.rel);
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_in_a_loop_are_skipped_as_such_not_as_errors() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        std::fs::write(root.join("sub/a.py"), "x = 1\n").expect("write");
        std::os::unix::fs::symlink("..", root.join("sub/up")).expect("link");
        std::os::unix::fs::symlink("l2", root.join("l1")).expect("link");
        std::os::unix::fs::symlink("l1", root.join("l2")).expect("link");
        let options = WalkOptions { follow: true, ..WalkOptions::default() };
        let walked = walk(root, &options).expect("walk");
        let skip =
            |rel: &str| walked.entries.iter().find(|e| e.rel == rel).and_then(|e| e.skip.clone());
        assert_eq!(skip("sub/a.py"), None);
        for rel in ["sub/up", "l1", "l2"] {
            let why = skip(rel);
            assert_eq!(why, Some(Skip::LinkLoop), "{rel}");
            assert!(!why.expect("skipped").is_error(), "{rel}");
        }
    }
}
