#pragma once
int do_agent(int argc, char **argv);
