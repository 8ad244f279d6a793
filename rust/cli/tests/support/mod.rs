//! What the command-line tests share: a temporary folder removed when dropped.

use std::path::PathBuf;

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
