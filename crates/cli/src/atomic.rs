//! Outputs written aside and moved into place, so that an interrupted run leaves either the
//! complete old output or the complete new one, and temporary files never outlive the run.
//!
//! Temporary names derive from the target (`.NAME.cleave-tmp-PID` beside it, never inside
//! it); the walker leaves such names out. Each temporary is locked (`flock`) by the run that
//! made it, for as long as it lives: a later run beside the same target removes only the
//! temporaries nobody holds a lock on, whatever process ids it can see (another container
//! may write the same folder). A SIGINT or SIGTERM removes the run's temporaries before
//! exiting; moving a finished output into place and that cleanup exclude each other, so an
//! interrupt never deletes what is being moved. A replaced output keeps its permissions.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard};

use anyhow::{Context, Result, bail};

/// Temporary paths of this run, removed on a signal.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set by the signal handler before it cleans up.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Held by the signal handler while it removes temporaries (until it exits the process), and
/// by a commit while it moves an output into place.
static CLEANING: Mutex<()> = Mutex::new(());

/// Held shared by every write into a staged folder, and exclusively by the signal handler
/// while it removes temporaries: once the removal starts, no worker can write a chunk file
/// into a temporary, nor re-create a removed one by creating the folders of a file in it.
static WRITES: RwLock<()> = RwLock::new(());

/// The right to write into a staged folder, until the guard drops; refused once a signal has
/// come (its handler removes the folder).
pub fn write_guard() -> Result<RwLockReadGuard<'static, ()>> {
    let guard = WRITES.read().unwrap_or_else(PoisonError::into_inner);
    if INTERRUPTED.load(Ordering::SeqCst) {
        bail!("interrupted");
    }
    Ok(guard)
}

/// Whether a signal interrupted the run. A run that fails because its temporaries vanish
/// under it then waits for the handler, which exits with 130 once they are all gone.
pub fn wait_if_interrupted() -> bool {
    if INTERRUPTED.load(Ordering::SeqCst) {
        let _cleaning = CLEANING.lock().unwrap_or_else(PoisonError::into_inner);
        return true;
    }
    false
}

fn register(path: &Path) {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner).push(path.to_owned());
}

/// Registers `path` for removal on a signal before it is created, and holds off the handler
/// until the guard drops: a temporary is created either under the guard, and then removed by
/// the handler, or never (the handler came first). Without it, a signal between creating the
/// temporary and registering it would leave it behind.
fn claim(path: &Path) -> Result<RwLockReadGuard<'static, ()>> {
    let guard = write_guard()?;
    register(path);
    Ok(guard)
}

fn unregister(path: &Path) {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner).retain(|p| p != path);
}

/// Removes this run's temporaries and exits with 130 on SIGINT or SIGTERM.
pub fn remove_temporaries_on_signal() {
    let res = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        let _cleaning = CLEANING.lock().unwrap_or_else(PoisonError::into_inner);
        let _writes = WRITES.write().unwrap_or_else(PoisonError::into_inner);
        let pending = std::mem::take(&mut *PENDING.lock().unwrap_or_else(PoisonError::into_inner));
        for path in pending {
            remove_any(&path);
        }
        std::process::exit(130);
    });
    if let Err(err) = res {
        crate::term::warn(format_args!("cannot handle interrupts: {err}"));
    }
}

/// Takes the cleanup lock for a commit; refuses once a signal has come (its handler will
/// remove the temporary instead).
fn commit_guard() -> Result<std::sync::MutexGuard<'static, ()>> {
    let guard = CLEANING.lock().unwrap_or_else(PoisonError::into_inner);
    if INTERRUPTED.load(Ordering::SeqCst) {
        bail!("interrupted");
    }
    Ok(guard)
}

fn remove_any(path: &Path) {
    // Workers may still be adding chunk files to a folder being removed: try a few times.
    for _ in 0..8 {
        let res = match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(path),
            Ok(_) => fs::remove_file(path),
            Err(_) => return,
        };
        if res.is_ok() {
            return;
        }
    }
}

/// `(parent, name)` of an output target; `parent` is "." for a bare name.
fn split(target: &Path) -> Result<(PathBuf, String)> {
    let name = target
        .file_name()
        .with_context(|| format!("{}: names no file or folder", target.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((parent.to_owned(), name))
}

fn temp_name(name: &str, what: &str, pid: u32) -> String {
    format!(".{name}.cleave-{what}-{pid}")
}

/// Locks `file` (a temporary's own handle) for as long as it is open: the mark of a live run.
fn lock(file: &File) -> bool {
    #[cfg(unix)]
    {
        use rustix::fs::{FlockOperation, flock};
        flock(file, FlockOperation::NonBlockingLockExclusive).is_ok()
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        true
    }
}

/// Removes temporaries of earlier runs beside `target` that no live run holds locked.
fn clean_stale(parent: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    let me = std::process::id();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        for what in ["tmp", "old"] {
            let prefix = format!(".{name}.cleave-{what}-");
            let Some(pid) = file.strip_prefix(&prefix).and_then(|p| p.parse::<u32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            // A lock taken here is released when `handle` closes, after the removal.
            let Ok(handle) = File::open(entry.path()) else { continue };
            if cfg!(unix) && lock(&handle) {
                remove_any(&entry.path());
            }
        }
    }
}

/// Gives `path` the permissions of the output it replaces, if there is one.
fn keep_permissions(path: &Path, target: &Path) {
    if let Ok(meta) = fs::metadata(target) {
        let _ = fs::set_permissions(path, meta.permissions());
    }
}

/// A file written beside its target and renamed over it on `commit`; removed if dropped.
pub struct AtomicFile {
    tmp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
    committed: bool,
}

impl AtomicFile {
    /// Starts writing `target`.
    pub fn create(target: &Path) -> Result<Self> {
        let (parent, name) = split(target)?;
        clean_stale(&parent, &name);
        let tmp = parent.join(temp_name(&name, "tmp", std::process::id()));
        let claimed = claim(&tmp)?;
        let file = match create_new(&tmp) {
            Ok(file) => file,
            Err(err) => {
                unregister(&tmp);
                return Err(err).with_context(|| format!("{}: cannot create", tmp.display()));
            }
        };
        drop(claimed);
        lock(&file);
        // Before a byte is written: a private output stays private.
        keep_permissions(&tmp, target);
        let out = Some(BufWriter::with_capacity(1 << 16, file));
        Ok(Self { tmp, target: target.to_owned(), out, committed: false })
    }

    /// Flushes, syncs and moves the file into place.
    pub fn commit(mut self) -> Result<()> {
        let what = || format!("{}: cannot write", self.target.display());
        let file = match self.out.take() {
            Some(out) => Some(out.into_inner().map_err(|e| e.into_error()).with_context(what)?),
            None => None,
        };
        if let Some(file) = &file {
            file.sync_all().with_context(what)?;
        }
        let _guard = commit_guard()?;
        fs::rename(&self.tmp, &self.target)
            .with_context(|| format!("{}: cannot move into place", self.target.display()))?;
        unregister(&self.tmp);
        self.committed = true;
        Ok(())
    }

    /// The target path.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().map_or(Ok(0), |o| o.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().map_or(Ok(()), BufWriter::flush)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            self.out = None;
            let _ = fs::remove_file(&self.tmp);
            unregister(&self.tmp);
        }
    }
}

/// Creates a file that must not exist; a leftover of an earlier run with this process id (ids
/// are reused) is removed first, as its name is cleave's own.
fn create_new(path: &Path) -> io::Result<File> {
    match File::options().write(true).create_new(true).open(path) {
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            remove_any(path);
            File::options().write(true).create_new(true).open(path)
        }
        res => res,
    }
}

/// A folder built beside its target and swapped into place on `commit`; removed if dropped.
pub struct StagedDir {
    tmp: PathBuf,
    target: PathBuf,
    parent: PathBuf,
    name: String,
    committed: bool,
    /// The open folder, locked: the mark of a live run for other runs' cleanup.
    _lock: Option<File>,
}

impl StagedDir {
    /// Starts building `target` (whose parent folders are created).
    pub fn create(target: &Path) -> Result<Self> {
        let (parent, name) = split(target)?;
        fs::create_dir_all(&parent)
            .with_context(|| format!("{}: cannot create", parent.display()))?;
        clean_stale(&parent, &name);
        let tmp = parent.join(temp_name(&name, "tmp", std::process::id()));
        let claimed = claim(&tmp)?;
        if fs::symlink_metadata(&tmp).is_ok() {
            remove_any(&tmp);
        }
        if let Err(err) = fs::create_dir(&tmp) {
            unregister(&tmp);
            return Err(err).with_context(|| format!("{}: cannot create", tmp.display()));
        }
        drop(claimed);
        let handle = File::open(&tmp).ok();
        if let Some(h) = &handle {
            lock(h);
        }
        keep_permissions(&tmp, target);
        Ok(Self { tmp, target: target.to_owned(), parent, name, committed: false, _lock: handle })
    }

    /// Where to write the folder's contents.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the folder into place. An existing target is swapped with it in one step where
    /// the system can (Linux `renameat2`), else renamed aside first; the old output is
    /// deleted only once the new one is in place.
    pub fn commit(mut self) -> Result<()> {
        let place = || format!("{}: cannot move the output into place", self.target.display());
        let guard = commit_guard()?;
        if fs::symlink_metadata(&self.target).is_err() {
            fs::rename(&self.tmp, &self.target).with_context(place)?;
        } else if exchange(&self.tmp, &self.target).is_ok() {
            // The temporary name now holds the old output, removed below.
        } else {
            let old = self.parent.join(temp_name(&self.name, "old", std::process::id()));
            fs::rename(&self.target, &old).with_context(place)?;
            if let Err(err) = fs::rename(&self.tmp, &self.target) {
                // Put the old output back rather than leave none.
                let _ = fs::rename(&old, &self.target);
                return Err(err).with_context(place);
            }
            unregister(&self.tmp);
            self.tmp = old;
        }
        self.committed = true;
        // The old output goes before the handler may run: it and this thread removing one
        // folder at once would each find entries gone under them, and the handler exits the
        // process when its own attempts end, which could leave the folder half removed.
        remove_any(&self.tmp);
        unregister(&self.tmp);
        drop(guard);
        Ok(())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            // A run that fails because a signal came drops its folder while the handler
            // removes it too: one at a time, or each finds entries gone under it and the
            // handler may exit with the folder half removed.
            let _cleaning = CLEANING.lock().unwrap_or_else(PoisonError::into_inner);
            remove_any(&self.tmp);
            unregister(&self.tmp);
        }
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::other("no atomic exchange here"))
}

/// Whether `path`, or a link on the way to what it names, is a descriptor path
/// (`/dev/stdout`, `/dev/fd/N`, `/proc/PID/fd/N`).
pub fn names_a_descriptor(path: &Path) -> bool {
    let is_descriptor = |p: &Path| {
        let s = p.to_string_lossy();
        matches!(s.as_ref(), "/dev/stdout" | "/dev/stderr")
            || s.starts_with("/dev/fd/")
            || (s.starts_with("/proc/") && s.contains("/fd/"))
    };
    let mut at = path.to_owned();
    for _ in 0..16 {
        if is_descriptor(&at) {
            return true;
        }
        let Ok(next) = fs::read_link(&at) else { return false };
        at = if next.is_absolute() {
            next
        } else {
            at.parent().unwrap_or(Path::new("/")).join(next)
        };
    }
    false
}

/// Refuses a target that exists and is not a folder.
pub fn ensure_dir_target(target: &Path) -> Result<()> {
    match fs::symlink_metadata(target) {
        Ok(m) if !m.is_dir() => bail!("{}: exists and is not a folder", target.display()),
        _ => Ok(()),
    }
}
