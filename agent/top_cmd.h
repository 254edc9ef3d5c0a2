#pragma once
int do_top(int argc, char **argv);
