// SPDX-License-Identifier: GPL-2.0-only
/* fexit_probe: does this kernel allow BPF trampolines? Asked without any of
 * cgperf's code: two instructions loaded with the raw bpf(2) syscall as an
 * fexit program on a kernel function (found in the kernel's BTF), then
 * attached. Prints one line and exits
 *   0  trampolines work here
 *   3  the kernel refused them (EPERM, ENOTSUPP or EOPNOTSUPP): the errno's
 *      text is the line's last part, as cgperf prints it
 *   1  the probe itself could not run (no BTF, other errors)
 * so a test can tell a kernel's refusal from a broken probe in cgperf. */
#include <bpf/btf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ENOTSUPP 524 /* the kernel's internal "not supported", leaked to user space */

static const char *const targets[] = { "vfs_read", "do_sys_openat2", "ksys_write" };

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int refused(int err)
{
	return err == EPERM || err == ENOTSUPP || err == EOPNOTSUPP;
}

static int verdict(const char *stage, int err)
{
	printf("fexit %s failed: %s\n", stage, strerror(err));
	return refused(err) ? 3 : 1;
}

int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id = -1, prog, link;

	if (!vmlinux) {
		printf("cannot read the kernel's BTF: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]) && id < 0; i++)
		id = btf__find_by_name_kind(vmlinux, targets[i], BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0) {
		printf("no fexit target function in the kernel's BTF\n");
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_TRACE_FEXIT;
	attr.attach_btf_id = id;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	prog = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog < 0)
		return verdict("load", errno);

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	link = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link < 0)
		return verdict("attach", errno);
	close(link);
	close(prog);
	printf("trampolines available\n");
	return 0;
}
