#!/bin/sh
# install_consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Installs the built fricl into a scratch prefix, moves it, then builds a
# downstream project against it twice: with find_package(fricl) and with
# pkg-config.
set -eu
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/installed" >/dev/null
# Relocatable: the consumers below use the install after it has moved, and
# the exported targets name no absolute path (such as libm's).
mv "$work/installed" "$work/prefix"
if grep -n 'INTERFACE_LINK_LIBRARIES.*/' "$work"/prefix/lib*/cmake/fricl/fricl-targets.cmake; then
  echo "install_consumer: the exported targets hold an absolute path" >&2
  exit 1
fi
cmake -S "$src/tests/consumer" -B "$work/cmake" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" \
  "$work/cmake/consumer"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
PKG_CONFIG_PATH="$libdir" pkg-config --exists fricl
cc -std=c99 $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags fricl) \
  "$src/tests/consumer/consumer.c" -o "$work/consumer_pc" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --libs fricl)
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$work/consumer_pc"
echo "install_consumer: find_package and pkg-config consumers OK"
