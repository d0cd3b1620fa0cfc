//! The one way crdls reads a file it did not write itself in this call: only a regular file (a FIFO
//! would block, a device never ends), at most a given size, checked before opening and while reading.
//! The workspace's files, the cache's entries, kubeconfigs and chart archives all go through it.

use std::io::Read;
use std::path::Path;

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: a FIFO, a device, a socket, a directory. Reading one could block forever
    /// or never end.
    NotRegular(&'static str),
    /// Larger than the limit the caller gave.
    TooLarge {
        /// The size seen (the file's length, or what was read before the limit stopped the reading).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not UTF-8.
    NotText,
    /// Named by a workspace file, but outside the workspace once `..` and symbolic links are resolved
    /// (or in its `.git` directory): a repository's reference does not lead crdls out of it.
    Outside,
    /// The system said no.
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what}); crdls reads only regular files"),
            ReadError::TooLarge { size, limit } => {
                write!(
                    f,
                    "{:.1} MiB, larger than the {} MiB crdls reads (the API server takes at most 3 MiB in one request)",
                    *size as f64 / MIB as f64,
                    limit / MIB
                )
            }
            ReadError::NotText => write!(f, "not UTF-8 text"),
            ReadError::Outside => {
                write!(f, "it leads outside the workspace (through `..`, an absolute path or a symbolic link); crdls does not follow it")
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

const MIB: u64 = 1024 * 1024;

/// What kind of non-regular file `meta` describes, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let ty = meta.file_type();
    if ty.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() || ty.is_block_device() {
            return "a device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Opens `path` (symbolic links followed) if it is a regular file of at most `limit` bytes, and says
/// how long it is. A FIFO is never waited on: the open does not block (`O_NONBLOCK`), so a file swapped
/// for a FIFO after it was looked at is opened at once, and refused by the look at what was opened.
pub fn open_regular(path: &Path, limit: u64) -> Result<(std::fs::File, u64), ReadError> {
    open_checked(path, limit, false)
}

/// [`open_regular`], and, when `no_follow`, a symbolic link in the path's last component is refused
/// (`O_NOFOLLOW`) rather than followed: for a path already resolved, which must not change under the
/// open.
pub(crate) fn open_checked(path: &Path, limit: u64, no_follow: bool) -> Result<(std::fs::File, u64), ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { size: meta.len(), limit });
    }
    let file = open_without_waiting(path, no_follow).map_err(ReadError::Io)?;
    // The path may have been replaced between the two looks: what was opened is what counts.
    let opened = file.metadata().map_err(ReadError::Io)?;
    if !opened.is_file() {
        return Err(ReadError::NotRegular(kind_of(&opened)));
    }
    if opened.len() > limit {
        return Err(ReadError::TooLarge { size: opened.len(), limit });
    }
    Ok((file, opened.len()))
}

/// Opens `path` for reading without ever waiting: `O_NONBLOCK` makes the open of a FIFO return at once
/// (it has no effect on reading a regular file). With `no_follow`, a symbolic link as the last
/// component is an error (`O_NOFOLLOW`).
fn open_without_waiting(path: &Path, no_follow: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK;
        if no_follow {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = no_follow;
    options.open(path)
}

/// Whether the resolved path `target` lies below the resolved directory `root`, and outside its `.git`
/// directory (where a clone's credentials may sit in a remote's URL).
pub fn resolved_inside(root: &Path, target: &Path) -> bool {
    target.strip_prefix(root).is_ok_and(|below| !below.components().any(|c| c.as_os_str() == ".git"))
}

/// The UTF-8 text of the regular file at `path`, at most `limit` bytes, when it lies inside the
/// directory `root` once `..` and symbolic links are resolved (see [`resolved_inside`]); otherwise
/// [`ReadError::Outside`], and nothing is opened. An empty path stands for the working directory.
///
/// The path is resolved once, and the resolved path is what is opened, with a link as its last
/// component refused. On Linux, where the opened file really is is then looked up again (through
/// `/proc/self/fd`) before a byte is read, so that a directory swapped for a link between the check
/// and the open cannot lead the read out of `root`.
pub fn read_text_inside(root: &Path, path: &Path, limit: u64) -> Result<String, ReadError> {
    let here = |p: &Path| if p.as_os_str().is_empty() { std::path::PathBuf::from(".") } else { p.to_path_buf() };
    let target = std::fs::canonicalize(here(path)).map_err(ReadError::Io)?;
    let root = std::fs::canonicalize(here(root)).map_err(ReadError::Io)?;
    if !resolved_inside(&root, &target) {
        return Err(ReadError::Outside);
    }
    let (file, len) = open_checked(&target, limit, true)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // Without /proc (a bare chroot) the look cannot be made; the resolved, link-refusing open stands.
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            if !resolved_inside(&root, &real) {
                return Err(ReadError::Outside);
            }
        }
    }
    String::from_utf8(read_opened(file, len, limit)?).map_err(|_| ReadError::NotText)
}

/// Reads at most `limit` bytes of an opened regular file of length `len`.
pub(crate) fn read_opened(file: std::fs::File, len: u64, limit: u64) -> Result<Vec<u8>, ReadError> {
    // The file may have grown since it was measured: the cap holds regardless.
    let mut bytes = Vec::with_capacity(len.min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (file, len) = open_regular(path, limit)?;
    read_opened(file, len, limit)
}

/// The UTF-8 text of the regular file at `path`, at most `limit` bytes of it.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|_| ReadError::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_regular_files_within_the_limit() {
        let dir = std::env::temp_dir().join(format!("crdls-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.yaml"), "a: 1\n").unwrap();
        assert_eq!(read_text(&dir.join("a.yaml"), 5).unwrap(), "a: 1\n");
        let err = read_text(&dir.join("a.yaml"), 4).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { size: 5, limit: 4 }), "{err:?}");
        assert!(matches!(read_text(&dir, 10), Err(ReadError::NotRegular("a directory"))));
        #[cfg(unix)]
        assert!(matches!(read_bytes(Path::new("/dev/zero"), 10), Err(ReadError::NotRegular("a device"))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A FIFO put where a file was looked at is opened without waiting for a writer, and then refused:
    /// before `O_NONBLOCK`, the open blocked the reader for good.
    #[cfg(unix)]
    #[test]
    fn opening_a_fifo_does_not_wait_for_a_writer() {
        let dir = std::env::temp_dir().join(format!("crdls-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("swapped.yaml");
        // The test makes its FIFO with coreutils' mkfifo: the crate forbids the unsafe call.
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo (coreutils) runs");
        assert!(made.success(), "mkfifo failed");
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let opened = open_without_waiting(&path, false).map(|f| f.metadata().map(|m| m.file_type().is_fifo()));
            let _ = tx.send(opened.ok().and_then(Result::ok));
        });
        use std::os::unix::fs::FileTypeExt;
        let got = rx.recv_timeout(std::time::Duration::from_secs(10));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(got, Ok(Some(true)), "the open of a FIFO waited for a writer");
    }

    /// A path resolved outside the root is refused unopened; one inside is read; a link as the last
    /// component of an already resolved path is refused by the open itself.
    #[cfg(unix)]
    #[test]
    fn reads_inside_a_root_only() {
        let dir = std::env::temp_dir().join(format!("crdls-inside-{}", std::process::id()));
        let root = dir.join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(dir.join("secret"), "token: x\n").unwrap();
        std::fs::write(root.join("a.yaml"), "a: 1\n").unwrap();
        std::fs::write(root.join(".git/config"), "url = x\n").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), root.join("link.yaml")).unwrap();
        assert_eq!(read_text_inside(&root, &root.join("a.yaml"), 100).unwrap(), "a: 1\n");
        assert!(matches!(read_text_inside(&root, &root.join("../secret"), 100), Err(ReadError::Outside)));
        assert!(matches!(read_text_inside(&root, &root.join("link.yaml"), 100), Err(ReadError::Outside)));
        assert!(matches!(read_text_inside(&root, &root.join(".git/config"), 100), Err(ReadError::Outside)));
        assert!(matches!(open_checked(&root.join("link.yaml"), 100, true), Err(ReadError::Io(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
