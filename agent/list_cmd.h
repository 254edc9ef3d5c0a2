#pragma once
int do_list(int argc, char **argv);
