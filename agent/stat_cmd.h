#pragma once
int do_stat(int argc, char **argv);
