//! Files the tools write: never one of the files they read, and never half written.
//!
//! [`OutFile::create`] refuses an output that is one of the command's inputs (the same file
//! by device and inode: through a symbolic link, a hard link or another spelling of the path
//! too), then writes into a temporary file beside the target; [`OutFile::commit`] flushes it
//! and renames it over the target in one step. Until then the target is untouched: a failed
//! write (a full disk), an error in the middle of a command or an interrupted run leaves the
//! old file as it was and no temporary file behind (it is removed when dropped). An existing
//! target that is a symbolic link is written through: the file it points to is replaced. An
//! existing file that is not a regular file (`/dev/null`, a pipe) is written in place. A new
//! file gets the mode an ordinary create gives (0666 less the umask), a replaced file keeps
//! its mode.
//!
//! Standard output has no such guarantee; [`stdout_error`] names it in the error of a failed
//! write, so that the tools can report it (and exit 1) instead of panicking.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// The output is one of the inputs: writing it would destroy what is being read.
    #[error("{output} is the same file as the input {input}: write the output elsewhere")]
    SameAsInput { output: String, input: String },
    /// The file system refused (no such folder, no space, no permission).
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl OutError {
    /// Whether the command's input was wrong (the output is an input) rather than the
    /// output failing on good input: the tools exit 2 for the first, 1 for the second.
    pub fn is_usage(&self) -> bool {
        matches!(self, OutError::SameAsInput { .. })
    }
}

/// The error of a failed write to standard output.
pub fn stdout_error(source: io::Error) -> OutError {
    OutError::Io {
        path: "standard output".into(),
        source,
    }
}

/// Whether `a` and `b` are the same file (device and inode); false when either is missing.
pub fn same_file(a: &Path, b: &Path) -> bool {
    same_file::is_same_file(a, b).unwrap_or(false)
}

/// An output file written atomically (see the module docs).
pub struct OutFile {
    target: PathBuf,
    shown: String,
    sink: Sink,
}

enum Sink {
    /// A temporary file beside a regular (or new) target, renamed over it at commit.
    Atomic(BufWriter<tempfile::NamedTempFile>),
    /// An existing file that is not a regular file (`/dev/null`, a FIFO, a terminal):
    /// written in place, since renaming over it would replace the device itself.
    Direct(BufWriter<File>),
}

impl OutFile {
    /// Starts writing `path`, refusing it when it is the same file as one of `inputs` (`-`
    /// for standard input is never the same). The temporary file lives in the target's folder
    /// so that the final rename stays on one file system.
    pub fn create(path: &Path, inputs: &[&Path]) -> Result<OutFile, OutError> {
        let shown = path.display().to_string();
        for input in inputs {
            if input.as_os_str() != "-" && same_file(path, input) {
                return Err(OutError::SameAsInput {
                    output: shown,
                    input: input.display().to_string(),
                });
            }
        }
        let io_err = |source| OutError::Io {
            path: shown.clone(),
            source,
        };
        // Through a symbolic link to the file it names; a new file where none exists.
        let target = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => path.to_path_buf(),
        };
        if let Ok(meta) = std::fs::metadata(&target) {
            if !meta.is_file() {
                if meta.is_dir() {
                    return Err(io_err(io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "it is a folder",
                    )));
                }
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(io_err)?;
                return Ok(OutFile {
                    target,
                    shown,
                    sink: Sink::Direct(BufWriter::new(f)),
                });
            }
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // The mode an ordinary create gives (0666 less the umask; the kernel applies the
        // umask to the mode asked for), not the temporary file's private 0600: the renamed
        // file is the command's output. A file that is replaced keeps its own (`commit`).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let tmp = builder.tempfile_in(&dir).map_err(io_err)?;
        Ok(OutFile {
            target,
            shown,
            sink: Sink::Atomic(BufWriter::new(tmp)),
        })
    }

    /// Flushes everything written and puts the file in place of the target.
    pub fn commit(self) -> Result<(), OutError> {
        let shown = self.shown;
        let io_err = |source| OutError::Io {
            path: shown.clone(),
            source,
        };
        let tmp = match self.sink {
            Sink::Direct(mut f) => return f.flush().map_err(io_err),
            Sink::Atomic(w) => w.into_inner().map_err(|e| io_err(e.into_error()))?,
        };
        tmp.as_file().sync_all().map_err(io_err)?;
        // Keep the permissions of a file that is replaced.
        if let Ok(meta) = std::fs::metadata(&self.target) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(io_err)?;
        }
        tmp.persist(&self.target).map_err(|e| io_err(e.error))?;
        Ok(())
    }

    /// The path as given (for messages).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The error of a failed write to this file.
    pub fn error(&self, source: io::Error) -> OutError {
        OutError::Io {
            path: self.shown.clone(),
            source,
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Atomic(w) => w.write(buf),
            Sink::Direct(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Atomic(w) => w.flush(),
            Sink::Direct(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_changes_only_at_commit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("d.txt");
        std::fs::write(&p, "old").expect("write");
        let mut f = OutFile::create(&p, &[]).expect("create");
        f.write_all(b"new").expect("write");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "old");
        f.commit().expect("commit");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
        // Dropped without commit: the target stays, and no temporary file is left.
        let mut g = OutFile::create(&p, &[]).expect("create");
        g.write_all(b"lost").expect("write");
        drop(g);
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1);
    }

    #[test]
    fn an_input_is_refused_under_any_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("in.jsonl");
        std::fs::write(&p, "{}\n").expect("write");
        let hard = dir.path().join("hard.jsonl");
        std::fs::hard_link(&p, &hard).expect("hard link");
        let dotted = dir.path().join(".").join("in.jsonl");
        let mut names = vec![p.clone(), hard, dotted];
        #[cfg(unix)]
        {
            let soft = dir.path().join("soft.jsonl");
            std::os::unix::fs::symlink(&p, &soft).expect("symlink");
            names.push(soft);
        }
        for out in &names {
            let e = OutFile::create(out, &[Path::new("-"), &p]).err();
            assert!(
                matches!(e, Some(OutError::SameAsInput { .. })),
                "{} was not refused",
                out.display()
            );
        }
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "{}\n");
    }

    /// A new output has the mode of a file made by `File::create` in the same folder under
    /// the same umask (0666 less the umask: 0644 under the usual 022), not the temporary
    /// file's 0600; a replaced file keeps its mode (0640 set by hand stays 0640, whatever
    /// the umask).
    #[cfg(unix)]
    #[test]
    fn a_new_file_has_the_mode_of_an_ordinary_create() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o7777;
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = dir.path().join("plain.txt");
        std::fs::File::create(&plain).expect("create");
        let p = dir.path().join("new.txt");
        let mut f = OutFile::create(&p, &[]).expect("create");
        f.write_all(b"new").expect("write");
        f.commit().expect("commit");
        assert_eq!(mode(&p), mode(&plain));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let mut g = OutFile::create(&p, &[]).expect("create");
        g.write_all(b"newer").expect("write");
        g.commit().expect("commit");
        assert_eq!(mode(&p), 0o640);
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "newer");
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "old").expect("write");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let mut f = OutFile::create(&link, &[]).expect("create");
        f.write_all(b"new").expect("write");
        f.commit().expect("commit");
        assert_eq!(std::fs::read_to_string(&real).expect("read"), "new");
        assert!(std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let mut f = OutFile::create(Path::new("/dev/null"), &[]).expect("create");
        f.write_all(b"x").expect("write");
        f.commit().expect("commit");
        // A full device: the failure is an error (the write or the final flush), never a
        // silent success, and the device is still a device afterwards.
        let mut g = OutFile::create(Path::new("/dev/full"), &[]).expect("create");
        let failed = g.write_all(&[0u8; 1 << 16]).is_err() || g.commit().is_err();
        assert!(failed, "a write to /dev/full succeeded");
        let meta = std::fs::metadata("/dev/full").expect("meta");
        assert!(meta.file_type().is_char_device());
    }
}
