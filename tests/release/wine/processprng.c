/* bcryptprimitives.dll for Wine releases older than 9.x, which lack it: Rust's standard library
 * (1.78 and later) asks ProcessPrng for random bytes, which RtlGenRandom (SystemFunction036 of
 * advapi32) gives as well. Windows 10 and later have the real one; this is only for the test. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
