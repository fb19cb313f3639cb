#!/bin/sh
# install_consumer_petsc.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Installs the built fricl into a scratch prefix, then builds and runs a
# downstream fricl_petsc program twice: with find_package(fricl COMPONENTS
# petsc) and with pkg-config (fricl_petsc.pc).
set -eu
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/petsc/consumer" -B "$work/cmake" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$work/cmake/consumer"
export PKG_CONFIG_PATH="$libdir:${PKG_CONFIG_PATH:-}"
cc $(pkg-config --cflags fricl_petsc) \
  "$src/tests/petsc/consumer/consumer.c" -o "$work/consumer_pc" \
  $(pkg-config --libs fricl_petsc)
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$work/consumer_pc"
echo "install_consumer_petsc: find_package and pkg-config consumers OK"
