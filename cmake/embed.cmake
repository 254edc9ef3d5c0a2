# SPDX-License-Identifier: GPL-2.0-only
# cmake -P: turn a text file into a NUL-terminated C char array.
#   -DIN=file -DOUT=generated .c -DNAME=symbol
# Used for the embedded default configuration, whose one source is
# packaging/cgperf.yaml (also installed as /etc/cgperf/cgperf.yaml).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n\t" bytes "${bytes}")
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}" "/* Generated from ${src} by cmake/embed.cmake: do not edit. */\n"
  "const char ${NAME}[] = {\n\t${bytes}0x00\n};\n")
