"""Copies of the package whose tall shared tiles (skinnyWords, skinnyTile's tall tiles) carry L2
eviction policies, for probe.py: `python3 variants.py NAME DEST` copies ../../../../src to DEST and
patches skinnytile.cu (NAME: VARIANTS).
- base: unchanged;
- ef: the inner tiles' packed loads (through registers, and skinnyWords' cp.async copies) evict-first
  in the L2 (createpolicy ... evict_first, fraction 1.0): read once, they should leave the L2 to the
  output rows' partly written lines;
- el: skinnyWords' inner row stores evict-last in the L2, so that a row's lines stay until the
  neighbouring tile has written their other part;
- efel: both."""
import pathlib
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/transpose/kernels/skinnytile.cu"
VARIANTS = ["base", "ef", "el", "efel"]
HEAD = '#include "vec.cuh"\n'
HELPERS = HEAD + r'''
__device__ __forceinline__ unsigned long long l2_policy_first() {
  unsigned long long p; asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p;
}
__device__ __forceinline__ unsigned long long l2_policy_last() {
  unsigned long long p; asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p)); return p;
}
__device__ __forceinline__ uint4 load16_first(const byte* p) {
  uint4 v;
  asm("ld.global.nc.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(l2_policy_first()));
  return v;
}
__device__ __forceinline__ void cp_async_word_first(unsigned dst, const void* src) {
  asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;"
               :: "r"(dst), "l"(src), "l"(l2_policy_first()) : "memory");
}
__device__ __forceinline__ void store16_last(byte* p, uint4 v) {
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
               :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(l2_policy_last()) : "memory");
}
'''
EF = [("    if (!GUARD && c < NC) v[i] = *reinterpret_cast<const uint4*>(in + 16 * gi);\n",
       "    if (!GUARD && c < NC) v[i] = load16_first(in + 16 * gi);\n"),
      ("      cp_async_word(dst, reinterpret_cast<const void*>(a));\n",
       "      cp_async_word_first(dst, reinterpret_cast<const void*>(a));\n")]
EL = [("    if (INNER) store16<false>(p, x);\n", "    if (INNER) store16_last(p, x);\n")]


def patched(text, name):
    if name == "base":
        return text
    assert text.count(HEAD) == 1
    text = text.replace(HEAD, HELPERS)
    for old, new in (EF if "ef" in name else []) + (EL if "el" in name else []):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def main(name, dest):
    assert name in VARIANTS, name
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__"))
    k = dest / KERNEL
    k.write_text(patched(k.read_text(), name))


if __name__ == "__main__":
    main(*sys.argv[1:3])
