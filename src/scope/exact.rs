//! Where a checked name is exactly the name of what it opens.
//!
//! On a filesystem that folds case (vfat, exfat, SMB, 9p, or an ext4,
//! f2fs or tmpfs directory with case folding on), `.ENV` opens `.env`:
//! the name the agent gave and checked against the exclusions is not the
//! file's name. The scope's fast open skips asking `/proc/self/fd` what it
//! opened only on a device whose filesystem cannot fold case on this
//! kernel; everywhere else the opened file's own name is checked.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// `ext2`/`ext3`/`ext4`.
const EXT4: u64 = 0xEF53;
/// `btrfs` (no case folding in Linux).
const BTRFS: u64 = 0x9123_683E;
/// `tmpfs`.
const TMPFS: u64 = 0x0102_1994;

/// What this kernel can do, as `/sys/fs` says.
#[derive(Debug, Clone, Copy)]
pub(super) struct Kernel {
    /// `/sys/fs` is there to ask.
    sysfs: bool,
    /// ext4 was built with case folding (`/sys/fs/ext4/features/casefold`).
    ext4_casefold: bool,
    /// tmpfs can be mounted with case folding.
    tmpfs_casefold: bool,
}

impl Kernel {
    /// Ask `/sys/fs`.
    pub(super) fn probe() -> Self {
        let has = |p: &str| Path::new(p).exists();
        Self {
            sysfs: has("/sys/fs"),
            ext4_casefold: has("/sys/fs/ext4/features/casefold"),
            tmpfs_casefold: has("/sys/fs/tmpfs/features/casefold"),
        }
    }

    /// True when a filesystem of type `fs_type` (`statfs`'s `f_type`)
    /// cannot fold case on this kernel. Unknown types and a kernel that
    /// cannot be asked count as folding.
    fn exact_names(self, fs_type: u64) -> bool {
        if !self.sysfs {
            return false;
        }
        match fs_type {
            BTRFS => true,
            EXT4 => !self.ext4_casefold,
            TMPFS => !self.tmpfs_casefold,
            _ => false,
        }
    }
}

/// The device of `root` when names on it are exact (see the module docs).
pub(super) fn exact_device(root: &Path, kernel: Kernel) -> Option<u64> {
    let fs = rustix::fs::statfs(root).ok()?;
    // `f_type` is a signed or unsigned word depending on the target.
    #[expect(
        clippy::cast_sign_loss,
        reason = "f_type is a magic number, not a count"
    )]
    let fs_type = fs.f_type as u64;
    let dev = std::fs::metadata(root).ok()?.dev();
    kernel.exact_names(fs_type).then_some(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VFAT: u64 = 0x4d44;
    const F2FS: u64 = 0xF2F5_2010;

    fn kernel(ext4_casefold: bool, tmpfs_casefold: bool) -> Kernel {
        Kernel {
            sysfs: true,
            ext4_casefold,
            tmpfs_casefold,
        }
    }

    #[test]
    fn only_filesystems_that_cannot_fold_case_here_are_exact() {
        let plain = kernel(false, false);
        assert!(plain.exact_names(EXT4));
        assert!(plain.exact_names(BTRFS));
        assert!(plain.exact_names(TMPFS));
        assert!(!plain.exact_names(VFAT));
        assert!(!plain.exact_names(F2FS));
        let folding = kernel(true, true);
        assert!(!folding.exact_names(EXT4));
        assert!(!folding.exact_names(TMPFS));
        assert!(folding.exact_names(BTRFS));
        let unknown = Kernel {
            sysfs: false,
            ext4_casefold: false,
            tmpfs_casefold: false,
        };
        assert!(!unknown.exact_names(EXT4));
    }

    #[test]
    fn a_root_gets_its_device_when_exact() {
        let dir = tempfile::tempdir().unwrap();
        let dev = std::fs::metadata(dir.path()).unwrap().dev();
        let always = Kernel {
            sysfs: true,
            ext4_casefold: false,
            tmpfs_casefold: false,
        };
        let fs_type = rustix::fs::statfs(dir.path()).unwrap().f_type;
        let expect = always.exact_names(u64::try_from(fs_type).unwrap_or(0));
        assert_eq!(exact_device(dir.path(), always), expect.then_some(dev));
        let never = Kernel {
            sysfs: false,
            ..always
        };
        assert_eq!(exact_device(dir.path(), never), None);
    }
}
