# Runs the program under gdb with a breakpoint at malloc's first byte (or at the location env BREAK
# gives, such as `-probe-stap python:function__entry`, whose semaphore gdb sets) and writes the
# physical frames of every hit (pc, the ELF symbol gdb names it by and the offset in it, innermost
# first) and the /proc/PID/maps of the process. With env CATCH (`getppid clock_gettime`), at each
# entry of those system calls instead (`catch syscall`; amd64: rax is -ENOSYS at an entry), each
# stack line then led by `number arg0: ` (the call's number, orig_rax, and its first argument, rdi).
import gdb, os
out = os.environ['BT_OUT']
gdb.execute('set pagination off')
gdb.execute('set confirm off')
gdb.execute('set backtrace past-main on')
gdb.execute('set breakpoint pending on')
gdb.execute('unset environment LINES')
gdb.execute('unset environment COLUMNS')
gdb.execute('starti')
inf = gdb.selected_inferior()
catch = os.environ.get('CATCH')
if catch:
    gdb.execute('catch syscall ' + catch)
else:
    gdb.execute('break ' + os.environ.get('BREAK', '*malloc'))
stacks = []
maps = None
while True:
    try:
        gdb.execute('continue')
    except gdb.error:
        break
    if not inf.is_valid() or inf.pid == 0 or not gdb.selected_thread():
        break
    key = ''
    if catch:
        if int(gdb.parse_and_eval('$rax')) != -38:
            continue  # the call's return
        key = '%d %d: ' % (int(gdb.parse_and_eval('$orig_rax')), int(gdb.parse_and_eval('$rdi')))
    if maps is None:
        maps = open('/proc/%d/maps' % inf.pid).read()
    f = gdb.newest_frame()
    st = []
    while f is not None:
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            # the ELF symbol gdb names the pc by (its minimal symbols: .symtab, .dynsym, debug files)
            sym = gdb.execute('info symbol 0x%x' % (f.pc() - (1 if st else 0)), to_string=True).strip()
            name, off = '-', 0
            if not sym.startswith('No symbol'):
                head = sym.split(' in section ')[0]
                name, _, o = head.partition(' + ')
                off = int(o) if o else 0
                off += 1 if st else 0
            st.append('%x %s %d' % (f.pc(), name, off))
        f = f.older()
    stacks.append(key + ' | '.join(st))
with open(out + '/stacks', 'w') as o:
    o.write('\n'.join(stacks) + '\n')
with open(out + '/maps', 'w') as o:
    o.write(maps or '')
