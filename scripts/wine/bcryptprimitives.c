/*
 * bcryptprimitives.dll for Wine 8.0, which has none. Rust's standard library (1.78 and later)
 * fills its hash seeds from ProcessPrng in that DLL at start-up, so without it every Rust .exe
 * dies while loading. Windows 10 and later ship the DLL; on a real Windows runner this file is
 * never used. ProcessPrng is answered from RtlGenRandom (advapi32's SystemFunction036), which
 * Wine has. Built by scripts/test-windows.sh with Debian's mingw-w64 into the throwaway Wine
 * prefix's system32. (Rust's change: rust-lang/rust pull request 121337; later Wine releases ship
 * a bcryptprimitives.dll of their own, and the script then leaves theirs in place.)
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a 32-bit length; ProcessPrng a pointer-sized one. */
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
