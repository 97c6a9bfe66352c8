//! The roots a server was started with, and the one way a tool's `path` becomes a file or a
//! folder: resolved by the file system (links, `..`) and refused unless it lies inside a root.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The canonical roots, in the order they were given.
#[derive(Debug)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

/// A path a tool was asked about, resolved inside a root.
#[derive(Debug, Clone)]
pub struct Target {
    /// Index of its root.
    pub root: usize,
    /// The canonical path.
    pub abs: PathBuf,
    /// Relative to its root with `/` separators, empty for the root itself.
    pub rel: String,
    /// Whether it is a folder (else a file).
    pub is_dir: bool,
}

impl Roots {
    /// Canonical roots; each must be a folder.
    pub fn new(roots: &[PathBuf]) -> io::Result<Self> {
        if roots.is_empty() {
            return Err(io::Error::other("no root given (--root DIR)"));
        }
        let mut canonical = Vec::with_capacity(roots.len());
        for root in roots {
            let path = std::fs::canonicalize(root)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", root.display())))?;
            if !path.is_dir() {
                return Err(io::Error::other(format!("{}: not a folder", root.display())));
            }
            canonical.push(path);
        }
        Ok(Self { roots: canonical })
    }

    /// The canonical root at `index`.
    pub fn get(&self, index: usize) -> &Path {
        &self.roots[index]
    }

    /// The roots, for messages.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        names.join(", ")
    }

    /// Resolves `path`: relative to the first root under which it exists, or absolute inside
    /// one. The answer is the canonical path, so a link or a `..` that leads out of every root
    /// is refused rather than followed.
    pub fn resolve(&self, path: &str) -> Result<Target, String> {
        if path.contains('\0') {
            return Err(format!("path {path:?} holds a NUL character"));
        }
        let given = Path::new(if path.is_empty() { "." } else { path });
        let mut outside = false;
        for (index, root) in self.roots.iter().enumerate() {
            let joined = if given.is_absolute() { given.to_owned() } else { root.join(given) };
            let Ok(real) = std::fs::canonicalize(&joined) else { continue };
            let Ok(rel) = real.strip_prefix(root) else {
                outside = true;
                continue;
            };
            let rel = slash_path(rel).ok_or_else(|| format!("path {path:?} is not UTF-8"))?;
            let meta = std::fs::metadata(&real).map_err(|e| format!("path {path:?}: {e}"))?;
            if !meta.is_dir() && !meta.is_file() {
                return Err(format!("path {path:?} is neither a file nor a folder"));
            }
            return Ok(Target { root: index, abs: real, rel, is_dir: meta.is_dir() });
        }
        if outside {
            Err(format!(
                "path {path:?} lies outside the roots this server may read ({})",
                self.describe()
            ))
        } else {
            Err(format!("path {path:?} does not exist under the roots ({})", self.describe()))
        }
    }
}

/// `rel` with `/` separators, or `None` when a part is not UTF-8.
fn slash_path(rel: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(part) => parts.push(part.to_str()?),
            // A canonical path below its root has only normal parts.
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_roots_only() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("docs")).expect("mkdir");
        std::fs::write(root.join("docs/a.md"), "# A\n").expect("write");
        std::fs::write(tmp.path().join("secret.txt"), "no").expect("write");
        let roots = Roots::new(std::slice::from_ref(&root)).expect("roots");

        let t = roots.resolve("docs/a.md").expect("inside");
        assert_eq!((t.rel.as_str(), t.is_dir), ("docs/a.md", false));
        assert_eq!(roots.resolve(".").expect("root").rel, "");
        assert_eq!(roots.resolve("docs/../docs").expect("dots").rel, "docs");
        let abs = root.join("docs").to_string_lossy().into_owned();
        assert_eq!(roots.resolve(&abs).expect("absolute").rel, "docs");

        let err = roots.resolve("../secret.txt").expect_err("outside");
        assert!(err.contains("outside the roots"), "{err}");
        let abs = tmp.path().join("secret.txt").to_string_lossy().into_owned();
        assert!(roots.resolve(&abs).is_err());
        assert!(roots.resolve("missing.md").expect_err("missing").contains("does not exist"));
        assert!(roots.resolve("a\0b").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("secret.txt"), root.join("link.txt"))
                .expect("link");
            let err = roots.resolve("link.txt").expect_err("a link out");
            assert!(err.contains("outside the roots"), "{err}");
        }
    }
}
