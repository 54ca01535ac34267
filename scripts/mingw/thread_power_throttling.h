/* THREAD_POWER_THROTTLING_STATE, which Windows' SDK has had since Windows 10 1709 (processthreadsapi.h)
 * and Debian 12's mingw-w64 10 headers lack (they have the PROCESS_ one and the ThreadPowerThrottling
 * class, not this struct). llama.cpp's ggml-cpu.c fills it to ask Windows 11 not to park the cores
 * its threads run on. scripts/mingw-toolchain.sh force-includes this header into the C files built
 * for x86_64-pc-windows-gnu only when the compiler's own headers lack the struct, so a newer
 * mingw-w64 uses its own. The layout is the SDK's: three ULONGs (unsigned long, 32 bits on Windows). */
#ifndef DOSSIER_MINGW_THREAD_POWER_THROTTLING_H
#define DOSSIER_MINGW_THREAD_POWER_THROTTLING_H

#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
#define THREAD_POWER_THROTTLING_VALID_FLAGS (THREAD_POWER_THROTTLING_EXECUTION_SPEED)

typedef struct _THREAD_POWER_THROTTLING_STATE {
  unsigned long Version;
  unsigned long ControlMask;
  unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE;

#endif
