# Stops a program at leaf() under gdb and writes what CfiUnwindGdbTest compares with: gdb's
# backtrace (physical frames), the registers, /proc/PID/maps, the stack from rsp up and the vDSO.
import gdb, os
out = os.environ['CFI_OUT']
gdb.execute('set pagination off')
gdb.execute('set backtrace past-main on')
gdb.execute('set backtrace past-entry on')
gdb.execute('handle SIGUSR1 nostop noprint pass')
gdb.execute('break leaf')
gdb.execute('run')
with open(out + '/bt', 'w') as o:
    f = gdb.newest_frame()
    while f is not None:
        # gdb's inline and tail-call frames are synthesised from debug info, not on the stack
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME): o.write('%x %s\n' % (f.pc(), f.name()))
        f = f.older()
fr = gdb.newest_frame()
with open(out + '/regs', 'w') as o:
    for r in ['rax','rdx','rcx','rbx','rsi','rdi','rbp','rsp','r8','r9','r10','r11','r12','r13','r14','r15','rip']:
        o.write('%s %x\n' % (r, int(fr.read_register(r)) & 0xffffffffffffffff))
inf = gdb.selected_inferior()
maps = open('/proc/%d/maps' % inf.pid).read()
open(out + '/maps', 'w').write(maps)
rsp = int(fr.read_register('rsp')) & 0xffffffffffffffff
for line in maps.splitlines():
    f = line.split()
    lo, hi = [int(x, 16) for x in f[0].split('-')]
    if lo <= rsp < hi:  # the stack the thread runs on ([stack], or a thread's mapping)
        open(out + '/stack', 'wb').write(bytes(inf.read_memory(rsp, hi - rsp)))
    if line.endswith('[vdso]'):
        open(out + '/vdso', 'wb').write(bytes(inf.read_memory(lo, hi - lo)))
gdb.execute('kill')
