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
/// how long it is. A FIFO is never opened (opening one blocks until a writer comes).
pub fn open_regular(path: &Path, limit: u64) -> Result<(std::fs::File, u64), ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { size: meta.len(), limit });
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    // The path may have been replaced between the two looks: what was opened is what counts.
    let opened = file.metadata().map_err(ReadError::Io)?;
    if !opened.is_file() {
        return Err(ReadError::NotRegular(kind_of(&opened)));
    }
    Ok((file, opened.len()))
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (file, len) = open_regular(path, limit)?;
    // The file may have grown since it was measured: the cap holds regardless.
    let mut bytes = Vec::with_capacity(len.min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, limit });
    }
    Ok(bytes)
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
}
