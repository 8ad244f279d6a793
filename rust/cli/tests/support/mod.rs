//! What the command-line tests share: running the tool, and a temporary folder removed when
//! dropped.

// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The tool run with `args`, then `paths`.
pub fn llamawad(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_llamawad"))
        .args(args)
        .args(paths)
        .output()
        .unwrap()
}

/// What a run that succeeded printed.
pub fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Exit 1 with one `error: ` line saying `saying`, and no panic.
pub fn refused(out: &Output, saying: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(saying),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"));
}

/// A folder of its own under the system's temporary folder, removed with what is in it.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(what: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("llamawad-{what}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
