# Installs Debian packages that are missing; quiet and quick when everything is present.
# Usage: ensure_packages pkg...
ensure_packages() {
  local missing=()
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "ctile: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# What building ctile and its tests needs on Debian 12.
CTILE_BUILD_PACKAGES=(cmake ninja-build g++ make pkg-config libboost-dev libgtest-dev)
CTILE_TOOL_PACKAGES=(libz3-dev libonnx-dev libprotobuf-dev protobuf-compiler)
CTILE_CROSS_PACKAGES=(clang-19 lld-19 llvm-19 gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  qemu-system-misc libstdc++-arm-none-eabi-dev libclang-rt-19-dev)
CTILE_TEST_PACKAGES=(libbenchmark-dev python3-onnx python3-numpy gnuplot-nox)
