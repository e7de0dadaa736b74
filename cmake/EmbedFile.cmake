# cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P EmbedFile.cmake
# Writes a C source defining `const unsigned char SYMBOL[]` (8-byte aligned,
# as libfdt wants a blob) and `const size_t SYMBOL_size` with IN's bytes.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n\t" body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/EmbedFile.cmake; do not edit. */\n#include <stddef.h>\n\n_Alignas(8) const unsigned char ${SYMBOL}[] = {\n\t${body}\n};\nconst size_t ${SYMBOL}_size = ${bytes};\n")
