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
/// `sysfs`: what `/sys` must be for its answers to count.
const SYSFS: u64 = 0x6265_6572;

/// What this kernel can do, as `/sys/fs` says.
#[derive(Debug, Clone, Copy)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "four independent yes/no answers of sysfs, each named"
)]
pub(super) struct Kernel {
    /// `/sys` is the kernel's sysfs (not a directory a sandbox made).
    sysfs: bool,
    /// ext4 is registered (`/sys/fs/ext4/features`): where a root is on
    /// ext4 and this is missing, sysfs cannot be trusted to say more.
    ext4_known: bool,
    /// ext4 was built with case folding (`/sys/fs/ext4/features/casefold`).
    ext4_casefold: bool,
    /// tmpfs can be mounted with case folding.
    tmpfs_casefold: bool,
}

impl Kernel {
    /// Ask `/sys/fs`.
    pub(super) fn probe() -> Self {
        let has = |p: &str| Path::new(p).exists();
        let sysfs = rustix::fs::statfs("/sys").is_ok_and(|fs| fs_type(&fs) == SYSFS);
        Self {
            sysfs,
            ext4_known: has("/sys/fs/ext4/features"),
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
            EXT4 => self.ext4_known && !self.ext4_casefold,
            TMPFS => !self.tmpfs_casefold,
            _ => false,
        }
    }
}

/// `statfs`'s `f_type` as the magic number it is.
fn fs_type(fs: &rustix::fs::StatFs) -> u64 {
    // A signed or unsigned word depending on the target; on a 32-bit one a
    // magic number with its top bit set comes out wrong, which only makes
    // that filesystem count as folding.
    #[expect(
        clippy::cast_sign_loss,
        reason = "f_type is a magic number, not a count"
    )]
    let t = fs.f_type as u64;
    t
}

/// The device of `root` when names on it are exact (see the module docs).
pub(super) fn exact_device(root: &Path, kernel: Kernel) -> Option<u64> {
    let fs = rustix::fs::statfs(root).ok()?;
    let dev = std::fs::metadata(root).ok()?.dev();
    kernel.exact_names(fs_type(&fs)).then_some(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VFAT: u64 = 0x4d44;
    const F2FS: u64 = 0xF2F5_2010;

    const PLAIN: Kernel = Kernel {
        sysfs: true,
        ext4_known: true,
        ext4_casefold: false,
        tmpfs_casefold: false,
    };

    #[test]
    fn only_filesystems_that_cannot_fold_case_here_are_exact() {
        assert!(PLAIN.exact_names(EXT4));
        assert!(PLAIN.exact_names(BTRFS));
        assert!(PLAIN.exact_names(TMPFS));
        assert!(!PLAIN.exact_names(VFAT));
        assert!(!PLAIN.exact_names(F2FS));
        let folding = Kernel {
            ext4_casefold: true,
            tmpfs_casefold: true,
            ..PLAIN
        };
        assert!(!folding.exact_names(EXT4));
        assert!(!folding.exact_names(TMPFS));
        assert!(folding.exact_names(BTRFS));
        let unknown = Kernel {
            sysfs: false,
            ..PLAIN
        };
        assert!(!unknown.exact_names(EXT4));
        assert!(!unknown.exact_names(BTRFS));
        // A sysfs that does not list ext4 (a sandbox's partial /sys) is not
        // believed about ext4.
        let partial = Kernel {
            ext4_known: false,
            ..PLAIN
        };
        assert!(!partial.exact_names(EXT4));
    }

    #[test]
    fn a_root_gets_its_device_when_exact() {
        let dir = tempfile::tempdir().unwrap();
        let dev = std::fs::metadata(dir.path()).unwrap().dev();
        let expect = PLAIN.exact_names(fs_type(&rustix::fs::statfs(dir.path()).unwrap()));
        assert_eq!(exact_device(dir.path(), PLAIN), expect.then_some(dev));
        let never = Kernel {
            sysfs: false,
            ..PLAIN
        };
        assert_eq!(exact_device(dir.path(), never), None);
    }

    #[test]
    fn this_sys_is_sysfs() {
        // The probe's own check, on the machine the tests run on.
        if Path::new("/sys/fs").exists() {
            assert!(
                Kernel::probe().sysfs,
                "/sys is here but not recognised as sysfs"
            );
        }
    }
}
