//! A seccomp filter for the shell: the system calls that could undo the
//! sandbox or reach past it (mounts, namespaces, ptrace, kernel modules,
//! BPF, keyrings, file handles, perf, userfaultfd, quotas) fail with
//! `EPERM`, and `clone3` (whose flags a filter cannot see) with `ENOSYS`
//! so libc falls back to `clone`, whose namespace flags are refused. A
//! second layer under capabilities and Landlock, which may be missing.

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Refused outright.
const DENIED: &[libc::c_long] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_quotactl,
    libc::SYS_chroot,
];

/// `clone` flags that make a namespace.
const NEW_NAMESPACES: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// The filters, compiled in the supervisor and installed in the child.
#[derive(Debug)]
pub struct Filters {
    deny: BpfProgram,
    clone3: BpfProgram,
}

fn err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("seccomp filter: {e}"))
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> io::Result<BpfProgram> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(err)?;
    let errno = u32::try_from(errno).map_err(err)?;
    let f = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        arch,
    )
    .map_err(err)?;
    f.try_into().map_err(err)
}

/// Compile the filters for this architecture.
pub fn build() -> io::Result<Filters> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|n| (*n, Vec::new())).collect();
    let mut clone = Vec::new();
    for flag in NEW_NAMESPACES {
        let bit = u64::from(flag.unsigned_abs());
        let cond =
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(bit), bit)
                .map_err(err)?;
        clone.push(SeccompRule::new(vec![cond]).map_err(err)?);
    }
    rules.insert(libc::SYS_clone, clone);
    let deny = compile(rules, libc::EPERM)?;
    let clone3 = compile(
        std::iter::once((libc::SYS_clone3, Vec::new())).collect(),
        libc::ENOSYS,
    )?;
    Ok(Filters { deny, clone3 })
}

impl Filters {
    /// Install both (sets `no_new_privs`). Async-signal-safe: for the
    /// forked child before `exec`, as the last step.
    pub fn apply(&self) -> io::Result<()> {
        for p in [&self.clone3, &self.deny] {
            if seccompiler::apply_filter(p).is_err() {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}
