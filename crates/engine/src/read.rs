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
    let file = open(&input.abs, input.follow).map_err(|err| open_error(&err))?;
    let meta = file.metadata().map_err(|err| Skip::Unreadable(err.to_string()))?;
    if let Some(skip) = Skip::not_regular(&meta) {
        return Err(skip);
    }
    if !same_file(input, &meta) {
        return Err(Skip::Changed);
    }
    // A folder on the way swapped for a link, or a followed link, can lead outside the root.
    if !confined(&file, input) {
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
    let file = File::open(path).map_err(|err| open_error(&err))?;
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
