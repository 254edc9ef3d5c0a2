/* A BPF program for tests to measure: loads a two-instruction socket filter
 * named cgperf_tprog (or argv[1]), prints its id, then obeys stdin: "run N" runs it N
 * times with BPF_PROG_TEST_RUN (prints "ran N"), "exit" (or EOF) unloads it
 * and exits. */
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info = { 0 };
	unsigned int len = sizeof(info);
	unsigned char packet[64] = { 0 };
	char line[64];
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, argc > 1 ? argv[1] : "cgperf_tprog",
			       "GPL", insns, 2, NULL);

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
	return 0;
}
