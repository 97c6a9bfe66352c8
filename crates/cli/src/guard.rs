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
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};

pub use cleave_engine::GENERATOR;

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
    /// Device and inode of the root: the same folder reached by another path (a bind mount)
    /// is the root too.
    id: Option<(u64, u64)>,
}

impl Root {
    /// Resolves the root given on the command line.
    pub fn new(root: &Path) -> Result<Self> {
        let resolved = fs::canonicalize(root)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", root.display()))?;
        let is_dir = resolved.is_dir();
        let id = file_id(&resolved);
        Ok(Self { resolved, is_dir, id })
    }

    /// Whether `path` (resolved) is the root or lies under it, by path or by folder identity.
    fn holds(&self, path: &Path) -> bool {
        path.starts_with(&self.resolved)
            || self.id.is_some() && path.ancestors().any(|a| file_id(a) == self.id)
    }

    /// Whether `path` (resolved) is the root or one of its ancestors, by path or identity.
    fn is_held_by(&self, path: &Path) -> bool {
        if self.resolved.starts_with(path) {
            return true;
        }
        let Some(id) = file_id(path) else { return false };
        self.resolved.ancestors().any(|a| file_id(a) == Some(id))
    }
}

fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
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

    /// Where to write: the path as given for stdout and descriptor paths (written like stdout),
    /// else the resolved path.
    pub fn target(&self) -> &Path {
        if self.given == Path::new("-") || crate::atomic::names_a_descriptor(&self.given) {
            &self.given
        } else {
            &self.resolved
        }
    }

    /// A cache folder (`--cache`).
    pub fn cache(given: &Path) -> Result<Self> {
        Ok(Self { given: given.to_owned(), resolved: resolve(given)?, what: "--cache" })
    }

    /// The index folder of `cleave index` (a cache with a term index).
    pub fn index(given: &Path) -> Result<Self> {
        Ok(Self { given: given.to_owned(), resolved: resolve(given)?, what: "--index" })
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
    if root.is_held_by(&cache.resolved) {
        bail!(
            "{} {} is the input or holds it: choose another folder",
            cache.what,
            cache.given.display()
        );
    }
    for other in files.iter().copied().chain(dir) {
        if other.resolved.starts_with(&cache.resolved)
            || cache.resolved.starts_with(&other.resolved)
        {
            bail!(
                "{} {} and {} {} overlap",
                cache.what,
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
    // Standard output, by name or through a descriptor path: written like stdout, never
    // replaced (the shell chose where it goes).
    if out.given == Path::new("-") || crate::atomic::names_a_descriptor(&out.given) {
        return Ok(());
    }
    if root.is_held_by(&out.resolved)
        || file_id(&out.resolved).is_some_and(|id| Some(id) == root.id)
    {
        bail!("{what} {given} is the input: refusing to overwrite it");
    }
    match fs::metadata(&out.resolved) {
        Ok(meta) if meta.is_dir() => bail!("{what} {given} is a folder"),
        // Any file under the walked root, an empty one too, is an input unless cleave wrote it.
        Ok(_)
            if root.is_dir && root.holds(&out.resolved) && !is_cleave_file(&out.resolved, root) =>
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
    if root.is_held_by(&out.resolved) {
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
    if root.is_dir && root.holds(&out.resolved) {
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
    cleave_engine::is_manifest_dir(dir)
}

/// The first entry of an earlier cleave output that its manifest does not list (a file a
/// person added since): replacing the folder would delete it. `None` when every entry is
/// cleave's own.
fn unlisted(dir: &Path) -> Option<String> {
    // A chunk folder lists `chunks` (and their views), a pack folder `packs`.
    #[derive(serde::Deserialize)]
    struct Manifest {
        #[serde(default)]
        chunks: Vec<Listed>,
        #[serde(default)]
        packs: Vec<ListedPack>,
    }
    #[derive(serde::Deserialize)]
    struct ListedPack {
        file: String,
    }
    #[derive(serde::Deserialize)]
    struct Listed {
        file: String,
        view: Option<String>,
    }
    let bytes = fs::read(dir.join("manifest.json")).ok()?;
    let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
        return Some("a manifest.json that does not parse".to_owned());
    };
    let listed: std::collections::HashSet<String> = manifest
        .chunks
        .into_iter()
        .flat_map(|c| std::iter::once(c.file).chain(c.view))
        .chain(manifest.packs.into_iter().map(|p| p.file))
        .collect();
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        match name.as_str() {
            "manifest.json" => {}
            folder @ ("chunks" | "views" | "packs") if entry.path().is_dir() => {
                for chunk in fs::read_dir(entry.path()).ok()?.flatten() {
                    let file = format!("{folder}/{}", chunk.file_name().to_string_lossy());
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

/// Whether a file is an earlier cleave output for this root (see the engine's rule).
fn is_cleave_file(path: &Path, root: &Root) -> bool {
    cleave_engine::is_cleave_output_file(path, &root.resolved)
}
