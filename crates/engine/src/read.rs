//! Reading what was walked, and nothing else.
//!
//! Between the walk and the read an entry can be swapped: for a symbolic link to a file
//! outside the root, for a FIFO that would block the read forever, for `/dev/zero`. So a file
//! is opened without following a final link and without blocking, the opened handle's own
//! metadata is checked (a regular file, the same file the walk saw, within the size limit)
//! before a byte is read, and the read stops one byte past the limit whatever the file does.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use crate::outcome::Skip;
use crate::walk::Input;

/// Reads a walked file: its bytes, or why it was not read. `limit` is the largest size read.
pub fn read_input(input: &Input, limit: u64) -> Result<Vec<u8>, Skip> {
    // Where the kernel can resolve the path beneath the root itself, the open is confined by
    // construction; elsewhere the opened handle's real path is checked after the open.
    let (file, beneath) = match beneath::open(input) {
        Some(Ok(file)) => (file, true),
        Some(Err(err)) => return Err(open_error(&err)),
        None => (open(&input.abs, input.follow).map_err(|err| open_error(&err))?, false),
    };
    let meta = file.metadata().map_err(|err| Skip::Unreadable(err.to_string()))?;
    if let Some(skip) = Skip::not_regular(&meta) {
        return Err(skip);
    }
    if !same_file(input, &meta) {
        return Err(Skip::Changed);
    }
    // A folder on the way swapped for a link, or a followed link, can lead outside the root.
    if !beneath && !confined(&file, input) {
        return Err(if input.follow { Skip::LinkOutsideRoot } else { Skip::Changed });
    }
    if meta.len() > limit {
        return Err(Skip::TooLarge { size: meta.len(), limit });
    }
    read_limited(file, meta.len(), limit)
}

/// Reads at most `limit` bytes; a file that grew past it since its size was taken is skipped
/// as too large rather than read to the end.
fn read_limited(file: File, size: u64, limit: u64) -> Result<Vec<u8>, Skip> {
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    let n = file
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| Skip::Unreadable(err.to_string()))?;
    if n as u64 > limit {
        return Err(Skip::TooLarge { size: n as u64, limit });
    }
    Ok(bytes)
}

/// Opens a path given by the user (a single file): its own size and kind are checked the
/// same way, links followed (the user named it).
pub fn read_path(path: &Path, limit: u64) -> Result<Vec<u8>, Skip> {
    // Without blocking, as the walk opens: a FIFO named on the command line is refused as
    // not a regular file rather than waited on for good.
    let file = open(path, true).map_err(|err| open_error(&err))?;
    let meta = file.metadata().map_err(|err| Skip::Unreadable(err.to_string()))?;
    if let Some(skip) = Skip::not_regular(&meta) {
        return Err(skip);
    }
    if meta.len() > limit {
        return Err(Skip::TooLarge { size: meta.len(), limit });
    }
    read_limited(file, meta.len(), limit)
}

fn open_error(err: &std::io::Error) -> Skip {
    #[cfg(unix)]
    if err.raw_os_error() == Some(libc::ELOOP) {
        // O_NOFOLLOW met a link where the walk saw a file.
        return Skip::Changed;
    }
    Skip::Unreadable(err.to_string())
}

#[cfg(unix)]
fn open(path: &Path, follow: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path)
}

#[cfg(not(unix))]
fn open(path: &Path, follow: bool) -> std::io::Result<File> {
    if !follow && std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("a symbolic link where the walk saw a file"));
    }
    File::open(path)
}

/// Whether the opened file is the one the walk saw (same device and inode on Unix).
fn same_file(input: &Input, meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Some((dev, ino)) = input.id {
            return meta.dev() == dev && meta.ino() == ino;
        }
    }
    let _ = (input, meta);
    true
}

/// Opening a walked file with `openat2(RESOLVE_BENEATH)` from a handle on its root (Linux
/// 5.6 and later): the kernel refuses any path, link or `..` that would leave the root, so no
/// check after the open is needed (and the `/proc/self/fd` read it costs is saved). Where the
/// call is refused (an older kernel, a sandbox's syscall filter) the caller opens the plain way.
#[cfg(target_os = "linux")]
mod beneath {
    use std::cell::RefCell;
    use std::ffi::OsStr;
    use std::fs::File;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::Arc;

    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;

    use crate::walk::Input;

    /// This thread's handle on the root of the last walk it read from (`None`: the root could
    /// not be opened), and whether openat2 was refused once (then it is not tried again).
    struct Roots {
        root: Option<(Arc<Path>, Option<OwnedFd>)>,
        refused: bool,
    }

    thread_local! {
        static ROOTS: RefCell<Roots> = const { RefCell::new(Roots { root: None, refused: false }) };
    }

    /// The walked file opened beneath its root: `None` when this way is not available (a
    /// single file, no handle on the root, openat2 refused), else the open's result.
    pub(super) fn open(input: &Input) -> Option<std::io::Result<File>> {
        let root = input.root.as_ref()?;
        // The path below the root as the walk found it, the tail of `abs` (`rel` is a name
        // callers may change, and a caller that points `root` elsewhere gets the plain open).
        let (walked_root, at) = input.below.as_ref()?;
        let below = Path::new(OsStr::from_bytes(input.abs.as_os_str().as_bytes().get(*at..)?));
        if !Arc::ptr_eq(walked_root, root) || !below.is_relative() || below.as_os_str().is_empty() {
            return None;
        }
        ROOTS.with(|roots| {
            let mut roots = roots.borrow_mut();
            if roots.refused {
                return None;
            }
            // Keyed by the walk's own `Arc` (held here, so its address is not reused): each walk
            // opens its root afresh, and a folder replaced since an earlier walk of a
            // long-lived process (the MCP server, the Python module) is never read through
            // a stale handle.
            if roots.root.as_ref().is_none_or(|(r, _)| !Arc::ptr_eq(r, root)) {
                let dir = rustix::fs::open(
                    &**root,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .ok();
                roots.root = Some((root.clone(), dir));
            }
            let dir = roots.root.as_ref()?.1.as_ref()?;
            let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
            if !input.follow {
                flags |= OFlags::NOFOLLOW;
            }
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
            match rustix::fs::openat2(dir, below, flags, Mode::empty(), resolve) {
                Ok(fd) => Some(Ok(File::from(fd))),
                // Not this kernel, or filtered: the plain open and the check after it.
                Err(Errno::NOSYS | Errno::PERM | Errno::INVAL | Errno::TOOBIG) => {
                    roots.refused = true;
                    None
                }
                // Out of the root, or an absolute link (refused even when it points inside):
                // the plain open decides, with the check after it.
                Err(Errno::XDEV) => None,
                Err(err) => Some(Err(err.into())),
            }
        })
    }
}

/// Elsewhere files are opened the plain way and checked after the open.
#[cfg(not(target_os = "linux"))]
mod beneath {
    use std::fs::File;

    use crate::walk::Input;

    pub(super) fn open(_: &Input) -> Option<std::io::Result<File>> {
        None
    }
}

/// Whether the opened file lies inside the walked root: its real path, as the kernel sees the
/// open handle (on Linux), else as the path resolves now.
fn confined(file: &File, input: &Input) -> bool {
    let Some(root) = &input.root else { return true };
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return real.starts_with(&**root);
        }
    }
    let _ = file;
    std::fs::canonicalize(&input.abs).is_ok_and(|real| real.starts_with(&**root))
}

#[cfg(all(test, unix))]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::walk::{WalkOptions, walk};

    fn walked_file(dir: &Path, name: &str) -> Input {
        let walked = walk(dir, &WalkOptions::default()).expect("walk");
        walked.entries.into_iter().find(|i| i.rel == name).expect("walked")
    }

    #[test]
    fn an_entry_swapped_after_the_walk_is_not_read() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (dir, outside) = (tmp.path().join("root"), tmp.path().join("outside.txt"));
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(&outside, "secret").expect("write");
        std::fs::write(dir.join("a.txt"), "hello").expect("write");
        let input = walked_file(&dir, "a.txt");
        assert_eq!(read_input(&input, 100).expect("read"), b"hello");
        // Swapped for a link to a file outside the root.
        std::fs::remove_file(dir.join("a.txt")).expect("rm");
        std::os::unix::fs::symlink(&outside, dir.join("a.txt")).expect("link");
        assert_eq!(read_input(&input, 100), Err(Skip::Changed));
        // Swapped for a FIFO: no read may block.
        std::fs::remove_file(dir.join("a.txt")).expect("rm");
        let made = std::process::Command::new("mkfifo").arg(dir.join("a.txt")).status();
        assert!(made.expect("mkfifo").success());
        assert_eq!(read_input(&input, 100), Err(Skip::NotRegular("FIFO")));
        // Swapped for another regular file.
        std::fs::remove_file(dir.join("a.txt")).expect("rm");
        std::fs::write(dir.join("a.txt"), "other").expect("write");
        let res = read_input(&input, 100);
        // The new file may reuse the inode number: then it is read, which is what is there.
        assert!(res == Err(Skip::Changed) || res == Ok(b"other".to_vec()), "{res:?}");
    }

    #[test]
    fn a_fifo_named_by_the_user_is_refused_not_waited_on() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let fifo = tmp.path().join("pipe.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo").success());
        assert_eq!(read_path(&fifo, 100), Err(Skip::NotRegular("FIFO")));
        std::fs::write(tmp.path().join("a.txt"), "hello").expect("write");
        assert_eq!(read_path(&tmp.path().join("a.txt"), 100).expect("read"), b"hello");
    }

    #[test]
    fn a_folder_swapped_for_a_link_out_of_the_root_is_not_read() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (dir, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
        std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::write(dir.join("sub/a.txt"), "inside").expect("write");
        std::fs::write(outside.join("a.txt"), "secret").expect("write");
        let input = walked_file(&dir, "sub/a.txt");
        assert_eq!(read_input(&input, 100).expect("read"), b"inside");
        // The folder on the way becomes a link out, relative and then absolute; the file
        // behind it even has the walked file's size.
        for target in [Path::new("../outside"), outside.as_path()] {
            let _ = std::fs::remove_dir_all(dir.join("sub"));
            let _ = std::fs::remove_file(dir.join("sub"));
            std::os::unix::fs::symlink(target, dir.join("sub")).expect("link");
            let mut swapped = input.clone();
            swapped.id = None;
            assert_eq!(read_input(&swapped, 100), Err(Skip::Changed), "{target:?}");
        }
    }

    #[test]
    fn followed_links_are_read_inside_the_root_only() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("root");
        std::fs::create_dir(&root).expect("mkdir");
        let root = std::fs::canonicalize(&root).expect("canonical");
        std::fs::write(root.join("a.txt"), "target").expect("write");
        std::fs::write(tmp.path().join("secret.txt"), "secret").expect("write");
        // An absolute link to a file inside the root (openat2 refuses absolute links beneath a
        // root even where they stay inside; such a link is still read) and a relative one.
        std::os::unix::fs::symlink(root.join("a.txt"), root.join("abs.txt")).expect("link");
        std::os::unix::fs::symlink("a.txt", root.join("rel.txt")).expect("link");
        let options = WalkOptions { follow: true, ..WalkOptions::default() };
        let walked = walk(&root, &options).expect("walk");
        for name in ["abs.txt", "rel.txt"] {
            let input = walked.entries.iter().find(|i| i.rel == name).expect("walked");
            assert!(input.follow, "{name} is a followed link");
            assert_eq!(read_input(input, 100).expect(name), b"target");
        }
        // The same link pointed out of the root after the walk.
        let mut input = walked.entries.iter().find(|i| i.rel == "rel.txt").expect("walked").clone();
        std::fs::remove_file(root.join("rel.txt")).expect("rm");
        std::os::unix::fs::symlink("../secret.txt", root.join("rel.txt")).expect("link");
        input.id = None;
        assert_eq!(read_input(&input, 100), Err(Skip::LinkOutsideRoot));
    }

    #[test]
    fn a_renamed_or_re_rooted_entry_is_still_read() {
        // The MCP server names a file of a walked subfolder by its path below the server's
        // root (`docs/a.md` for the walk of `docs`), and a single file's root is the server's.
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(tmp.path()).expect("canonical");
        std::fs::create_dir(root.join("docs")).expect("mkdir");
        std::fs::write(root.join("docs/a.md"), "# A\n").expect("write");
        let mut input = walked_file(&root.join("docs"), "a.md");
        input.rel = "docs/a.md".to_owned();
        assert_eq!(read_input(&input, 100).expect("renamed"), b"# A\n");
        input.root = Some(Arc::from(root.as_path()));
        assert_eq!(read_input(&input, 100).expect("re-rooted"), b"# A\n");
    }

    #[test]
    fn the_size_limit_is_checked_before_reading() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let file = std::fs::File::create(tmp.path().join("big.bin")).expect("create");
        file.set_len(1 << 40).expect("sparse file of 1 TiB");
        let input = walked_file(tmp.path(), "big.bin");
        assert_eq!(
            read_input(&input, 1 << 20),
            Err(Skip::TooLarge { size: 1 << 40, limit: 1 << 20 })
        );
    }
}
