//! Outputs that can never destroy an input.
//!
//! Every output path is resolved (links and `.`/`..` included, through its nearest existing
//! folder) and compared with the walked root before anything is created:
//! - `-o`/`--report` naming the input file, or an existing file under the walked root that is
//!   not an earlier cleave output, are refused: that file is an input;
//! - `--out` that is the root or one of its ancestors is refused, whatever `--force` says:
//!   replacing it would delete the input; `--out` under the root may only replace an earlier
//!   cleave output (its files would be inputs otherwise); outside the root `--force` may
//!   replace any folder;
//! - two outputs that are one path, or one inside the other, are refused.
//!
//! Outputs under the root are left out of the walk, so they are never chunked again.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};

/// The generator tag that opens a manifest and a report: how cleave recognises its outputs.
pub const GENERATOR: &str = "{\"generator\": \"cleave\"";

/// A resolved output.
pub struct Output {
    /// As given.
    pub given: PathBuf,
    /// Resolved: absolute, without links, `.` or `..`.
    pub resolved: PathBuf,
    what: &'static str,
}

/// The walked root, resolved.
pub struct Root {
    resolved: PathBuf,
    is_dir: bool,
}

impl Root {
    /// Resolves the root given on the command line.
    pub fn new(root: &Path) -> Result<Self> {
        let resolved = fs::canonicalize(root)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", root.display()))?;
        let is_dir = resolved.is_dir();
        Ok(Self { resolved, is_dir })
    }
}

/// Resolves `path` through its nearest existing ancestor: the result names the same place
/// whether or not the path exists yet.
pub fn resolve(path: &Path) -> Result<PathBuf> {
    let abs =
        if path.is_absolute() { path.to_owned() } else { std::env::current_dir()?.join(path) };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = fs::canonicalize(existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::Normal(name) => out.push(name),
                    _ => {}
                }
            }
            return Ok(out);
        }
        let Some(parent) = existing.parent() else { return Ok(abs) };
        if let Some(last) = existing.components().next_back() {
            rest.push(last);
        }
        existing = parent;
    }
}

impl Output {
    /// A file output (`-o`, `--report`).
    pub fn file(given: &Path, what: &'static str) -> Result<Self> {
        Ok(Self { given: given.to_owned(), resolved: resolve(given)?, what })
    }

    /// A folder output (`--out`).
    pub fn dir(given: &Path) -> Result<Self> {
        Ok(Self { given: given.to_owned(), resolved: resolve(given)?, what: "--out" })
    }

    /// A cache folder (`--cache`).
    pub fn cache(given: &Path) -> Result<Self> {
        Ok(Self { given: given.to_owned(), resolved: resolve(given)?, what: "--cache" })
    }
}

/// A cache folder is written into, never replaced: it must not be or hold the root, and must
/// not overlap the run's other outputs. (The engine refuses a non-empty folder that is not a
/// cleave cache.)
pub fn check_cache(
    root: &Root,
    cache: &Output,
    files: &[&Output],
    dir: Option<&Output>,
) -> Result<()> {
    if root.resolved.starts_with(&cache.resolved) {
        bail!("--cache {} is the input or holds it: choose another folder", cache.given.display());
    }
    for other in files.iter().copied().chain(dir) {
        if other.resolved.starts_with(&cache.resolved)
            || cache.resolved.starts_with(&other.resolved)
        {
            bail!(
                "--cache {} and {} {} overlap",
                cache.given.display(),
                other.what,
                other.given.display()
            );
        }
    }
    Ok(())
}

/// Checks every output against the root and the others; see the module doc.
pub fn check(root: &Root, files: &[&Output], dir: Option<&Output>, force: bool) -> Result<()> {
    let all: Vec<&Output> = files.iter().copied().chain(dir).collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.resolved.starts_with(&b.resolved) || b.resolved.starts_with(&a.resolved) {
                bail!(
                    "{} {} and {} {} overlap: give them different places",
                    a.what,
                    a.given.display(),
                    b.what,
                    b.given.display()
                );
            }
        }
    }
    for out in files {
        check_file(root, out)?;
    }
    if let Some(dir) = dir {
        check_dir(root, dir, force)?;
    }
    Ok(())
}

fn check_file(root: &Root, out: &Output) -> Result<()> {
    let (what, given) = (out.what, out.given.display());
    if out.resolved == root.resolved || root.resolved.starts_with(&out.resolved) {
        bail!("{what} {given} is the input: refusing to overwrite it");
    }
    match fs::metadata(&out.resolved) {
        Ok(meta) if meta.is_dir() => bail!("{what} {given} is a folder"),
        Ok(meta)
            if meta.len() > 0
                && root.is_dir
                && out.resolved.starts_with(&root.resolved)
                && !is_cleave_file(&out.resolved) =>
        {
            bail!(
                "{what} {given} is a file under the walked root and not an earlier cleave output: it is an input; refusing to overwrite it"
            );
        }
        _ => {}
    }
    Ok(())
}

fn check_dir(root: &Root, out: &Output, force: bool) -> Result<()> {
    let given = out.given.display();
    if root.resolved.starts_with(&out.resolved) {
        bail!(
            "--out {given} is the input or holds it: replacing it would delete the input; choose another folder"
        );
    }
    let Ok(meta) = fs::metadata(&out.resolved) else { return Ok(()) };
    if !meta.is_dir() {
        bail!("--out {given} exists and is not a folder");
    }
    let empty = fs::read_dir(&out.resolved).map(|mut d| d.next().is_none()).unwrap_or(false);
    let foreign = if empty {
        return Ok(());
    } else if !is_cleave_dir(&out.resolved) {
        "holds no cleave manifest.json".to_owned()
    } else {
        match unlisted(&out.resolved) {
            None => return Ok(()),
            Some(what) => format!("holds {what}, which its cleave manifest does not list"),
        }
    };
    if root.is_dir && out.resolved.starts_with(&root.resolved) {
        bail!(
            "--out {given} is a folder under the walked root that {foreign}: its files are inputs; refusing to replace it, even with --force"
        );
    }
    if !force {
        bail!("--out {given}: folder is not empty and {foreign}; use --force to replace it");
    }
    Ok(())
}

/// Whether a folder is an earlier cleave output: its manifest opens with the generator tag.
pub fn is_cleave_dir(dir: &Path) -> bool {
    head(&dir.join("manifest.json")).is_some_and(|h| h.starts_with(GENERATOR.as_bytes()))
}

/// The first entry of an earlier cleave output that its manifest does not list (a file a
/// person added since): replacing the folder would delete it. `None` when every entry is
/// cleave's own.
fn unlisted(dir: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        chunks: Vec<Listed>,
    }
    #[derive(serde::Deserialize)]
    struct Listed {
        file: String,
    }
    let bytes = fs::read(dir.join("manifest.json")).ok()?;
    let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
        return Some("a manifest.json that does not parse".to_owned());
    };
    let listed: std::collections::HashSet<String> =
        manifest.chunks.into_iter().map(|c| c.file).collect();
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        match name.as_str() {
            "manifest.json" => {}
            "chunks" if entry.path().is_dir() => {
                for chunk in fs::read_dir(entry.path()).ok()?.flatten() {
                    let file = format!("chunks/{}", chunk.file_name().to_string_lossy());
                    if !listed.contains(&file) || !chunk.path().is_file() {
                        return Some(file);
                    }
                }
            }
            _ => return Some(name),
        }
    }
    None
}

/// Whether a file is an earlier cleave output: JSON Lines of chunk records, a JSON document
/// of chunks, or a report.
fn is_cleave_file(path: &Path) -> bool {
    let Some(head) = head(path) else { return false };
    head.starts_with(GENERATOR.as_bytes())
        || head.starts_with(b"{\"chunks\": [")
        || head.starts_with(b"{\"id\":\"") && head.windows(9).any(|w| w == b",\"path\":\"")
}

fn head(path: &Path) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(64);
    fs::File::open(path).ok()?.take(64).read_to_end(&mut buf).ok()?;
    Some(buf)
}
