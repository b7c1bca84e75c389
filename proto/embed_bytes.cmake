# Writes a C source holding one binary file's bytes as a const array, at
# build time: cmake -DIN=file.pb -DOUT=file.c -DNAME=symbol -P embed_bytes.cmake
# defines `const uint8_t NAME[]` and `const size_t NAME_len`.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR n_bytes "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# Sixteen bytes a line keeps the generated file readable.
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE ${OUT}
  "/* Generated from ${IN} by proto/embed_bytes.cmake: do not edit. */\n"
  "#include <stddef.h>\n#include <stdint.h>\n"
  "extern const uint8_t ${NAME}[];\nextern const size_t ${NAME}_len;\n"
  "const uint8_t ${NAME}[] = {\n${body}\n};\n"
  "const size_t ${NAME}_len = ${n_bytes};\n")
