// SPDX-License-Identifier: GPL-2.0-only
/* A BPF program for tests to measure: loads a two-instruction socket filter
 * named cgperf_tprog (or argv[1]), prints its id, then obeys stdin: "run N" runs it N
 * times with BPF_PROG_TEST_RUN (prints "ran N"), "exit" (or EOF) unloads it
 * and exits. With argv[2] "btf" the program has BTF function info (its
 * main function is named like it), so fentry/fexit can attach to it. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* BTF for "int NAME(void)" and the func info naming it at instruction 0;
 * freed at the end (the loaded program keeps the kernel's copy). */
static struct btf *btf;

static int add_btf(const char *name, struct bpf_prog_load_opts *opts, struct bpf_func_info *fi)
{
	int int_id, proto, fn;

	btf = btf__new_empty();
	if (!btf)
		return -1;
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = int_id > 0 ? btf__add_func_proto(btf, int_id) : -1;
	fn = proto > 0 ? btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto) : -1;
	if (fn < 0 || btf__load_into_kernel(btf) < 0)
		return -1; /* the process exits: nothing to free */
	*fi = (struct bpf_func_info){ .insn_off = 0, .type_id = fn };
	opts->prog_btf_fd = btf__fd(btf);
	opts->func_info = fi;
	opts->func_info_cnt = 1;
	opts->func_info_rec_size = sizeof(*fi);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info = { 0 };
	unsigned int len = sizeof(info);
	unsigned char packet[64] = { 0 };
	const char *name = argc > 1 ? argv[1] : "cgperf_tprog";
	LIBBPF_OPTS(bpf_prog_load_opts, load);
	struct bpf_func_info fi;
	char line[64];
	int fd;

	if (argc > 2 && strcmp(argv[2], "btf") == 0 && add_btf(name, &load, &fi) < 0) {
		perror("prog_runner: loading BTF");
		return 1;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, 2, &load);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0) {
		perror("prog_runner: loading the program");
		return 1;
	}
	printf("%u\n", info.id);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "exit", 4) != 0) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = packet,
			    .data_size_in = sizeof(packet));
		int n = strncmp(line, "run ", 4) == 0 ? atoi(line + 4) : 0;

		opts.repeat = n;
		if (n <= 0 || bpf_prog_test_run_opts(fd, &opts) < 0) {
			perror("prog_runner: test run");
			return 1;
		}
		printf("ran %d\n", n);
		fflush(stdout);
	}
	close(fd);
	btf__free(btf); /* a sanitizer build's LeakSanitizer checks helpers too */
	return 0;
}
