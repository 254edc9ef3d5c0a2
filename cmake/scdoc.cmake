# SPDX-License-Identifier: GPL-2.0-only
# cmake -P: one man page from its scdoc source.  -DSCDOC= -DIN= -DOUT=
execute_process(COMMAND ${SCDOC} INPUT_FILE "${IN}" OUTPUT_FILE "${OUT}.tmp"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "scdoc failed on ${IN}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
