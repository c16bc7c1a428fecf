#!/usr/bin/python3
"""A "lazy" FUSE file system for power-cut tests, in the spirit of LazyFS (INESC TEC, used
by Jepsen): a passthrough over BACKING that, when told the power went, puts every file
back to what its last fsync/fdatasync made durable.

usage: lazyfs.py BACKING MOUNTPOINT   (as root; needs python3-fusepy, i.e. libfuse2)

It stays in the foreground and prints "lazyfs: serving BACKING at MOUNTPOINT" once the
mount is up. Commands, one per line on stdin:
  cut   the power goes: every file gets back its last durable contents and size, one line
        "lazyfs: cut: lost N unsynced bytes in M files: name bytes, ..." is printed, and
        from then on every operation fails with EIO (the device is gone). Unmount
        (`umount MOUNTPOINT`; the process then exits) and mount again to "reboot": a fresh
        mount also leaves no kernel page cache behind from before the cut.
End of stdin (the test died) detaches the mount, so nothing stale is left behind.

What counts as durable:
- File contents and size: what they were at the file's last fsync or fdatasync (both
  count the same), or when it was first seen (files already in BACKING at mount are
  durable). A file created and never synced comes back empty.
- Names (create, unlink, rename, mkdir, rmdir, symlink): durable at once, as if every
  directory were synced right away. Hard links are not offered (EROFS): the undo log is
  kept per name.

How: an undo log. Before a write, a truncate or a shrink first touches a 4 KiB block of a
file since its last sync, the block's durable bytes are kept in memory with the durable
size; fsync drops them; a cut writes them back and truncates to the durable size. The
backing files are never fsync'd themselves: the host does not lose power, only this mount
pretends to.

Why it catches a missing fsync: libfuse2 never asks for the kernel's writeback cache, so
each write(2) reaches this process before it returns; nothing unsynced hides in the page
cache. Only pages of a shared writable mmap (SQLite's -shm) come later, when the kernel
writes them back; SQLite rebuilds -shm when the first connection opens a database anyway.

Mount choices: no direct_io (SQLite needs a shared writable mmap of -shm, which FUSE
refuses in direct_io mode); attr/entry/negative timeouts 0 so sizes always come from here;
use_ino so st_ino is the backing file's (SQLite and the daemon key files by device+inode).
POSIX locks are left to the kernel (no lock operation: the kernel then does them locally,
enough for one machine). fallocate is not offered (fusepy has no slot for it): callers get
EOPNOTSUPP, which SQLite copes with. O_DIRECT opens are accepted by the kernel (FUSE has
direct_IO); their writes come here like any other and the backing file is opened without
O_DIRECT, so no alignment rules apply. The number of O_DIRECT opens is in the cut line.
"""
import ctypes
import errno
import os
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations

BLOCK = 4096


class Undo:
    """What a file was at its last sync: its size and the old bytes of each block changed since."""

    def __init__(self, size):
        self.size = size
        self.blocks = {}  # block index -> durable bytes (shorter at the durable end of file)


class LazyFS(Operations):
    use_ns = True

    def __init__(self, backing, mountpoint):
        self.backing = os.path.realpath(backing)
        self.mountpoint = mountpoint
        # One lock for every operation and the cut: the undo log must match the files.
        self.mutex = threading.Lock()
        self.undo = {}  # path under the mount -> Undo
        self.dead = False
        self.direct_opens = 0

    def __call__(self, op, *args):
        with self.mutex:
            # After a cut the device is gone; only closing handles is still allowed.
            if self.dead and op not in ("release", "releasedir", "destroy"):
                raise FuseOSError(errno.EIO)
            return super().__call__(op, *args)

    def real(self, path):
        return self.backing + path

    # The undo log.

    def remember(self, path, fd, start, end):
        """Bytes start..<end of the file are about to change: keep the durable ones they cover."""
        undo = self.undo.get(path)
        if undo is None:
            undo = self.undo[path] = Undo(os.fstat(fd).st_size)
        stop = min(end, undo.size)
        for block in range(start // BLOCK, (stop + BLOCK - 1) // BLOCK):
            if block not in undo.blocks:
                offset = block * BLOCK
                undo.blocks[block] = os.pread(fd, min(BLOCK, undo.size - offset), offset)

    def cut(self):
        with self.mutex:
            self.dead = True
            lost_total, files = 0, []
            for path, undo in sorted(self.undo.items()):
                try:
                    fd = os.open(self.real(path), os.O_RDWR)
                except FileNotFoundError:  # removed behind our back, in BACKING itself
                    continue
                try:
                    lost = max(0, os.fstat(fd).st_size - undo.size)
                    for block, old in undo.blocks.items():
                        now = os.pread(fd, len(old), block * BLOCK)
                        lost += sum(a != b for a, b in zip(old, now)) + len(old) - len(now)
                        os.pwrite(fd, old, block * BLOCK)
                    os.ftruncate(fd, undo.size)
                finally:
                    os.close(fd)
                if lost:
                    files.append(f"{path.lstrip('/')} {lost}")
                    lost_total += lost
            self.undo.clear()
            detail = (": " + ", ".join(files)) if files else ""
            print(
                f"lazyfs: cut: lost {lost_total} unsynced bytes in {len(files)} files{detail}"
                f" ({self.direct_opens} O_DIRECT opens)",
                flush=True,
            )

    # Files.

    def init(self, path):
        print(f"lazyfs: serving {self.backing} at {self.mountpoint}", flush=True)

    def open(self, path, fi):
        if fi.flags & os.O_DIRECT:
            self.direct_opens += 1
        # Always read-write, never O_DIRECT or O_APPEND: pre-images are read through the same
        # descriptor, and the kernel already gives each write its offset.
        fi.fh = os.open(self.real(path), os.O_RDWR)
        return 0

    def create(self, path, mode, fi):
        if fi.flags & os.O_DIRECT:
            self.direct_opens += 1
        fi.fh = os.open(self.real(path), os.O_RDWR | os.O_CREAT | (fi.flags & os.O_EXCL), mode)
        return 0

    def read(self, path, size, offset, fi):
        return os.pread(fi.fh, size, offset)

    def write(self, path, data, offset, fi):
        self.remember(path, fi.fh, offset, offset + len(data))
        return os.pwrite(fi.fh, data, offset)

    def truncate(self, path, length, fi=None):
        fd = fi.fh if fi is not None else os.open(self.real(path), os.O_RDWR)
        try:
            self.remember(path, fd, length, os.fstat(fd).st_size)
            os.ftruncate(fd, length)
        finally:
            if fi is None:
                os.close(fd)

    def fsync(self, path, datasync, fi):
        self.undo.pop(path, None)

    def flush(self, path, fi):
        return 0

    def release(self, path, fi):
        os.close(fi.fh)

    def getattr(self, path, fh=None):
        st = os.lstat(self.real(path))
        keys = ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size", "st_blocks", "st_blksize")
        attrs = {key: getattr(st, key) for key in keys}
        attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
        return attrs

    def statfs(self, path):
        sv = os.statvfs(self.real(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                "f_frsize", "f_namemax")
        return {key: getattr(sv, key) for key in keys}

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self.real(path), uid, gid, follow_symlinks=False)

    def utimens(self, path, times=None):
        if times is None:
            os.utime(self.real(path), follow_symlinks=False)
        else:
            os.utime(self.real(path), ns=times, follow_symlinks=False)

    def access(self, path, amode):
        if not os.access(self.real(path), amode):
            raise FuseOSError(errno.EACCES)

    # Names: durable at once.

    def forget(self, path):
        """Drops the undo log of `path` and of everything under it."""
        for key in [k for k in self.undo if k == path or k.startswith(path + "/")]:
            del self.undo[key]

    def unlink(self, path):
        os.unlink(self.real(path))
        self.forget(path)

    def rename(self, old, new):
        os.rename(self.real(old), self.real(new))
        self.forget(new)
        for key in [k for k in self.undo if k == old or k.startswith(old + "/")]:
            self.undo[new + key[len(old):]] = self.undo.pop(key)

    def mkdir(self, path, mode):
        os.mkdir(self.real(path), mode)

    def rmdir(self, path):
        os.rmdir(self.real(path))
        self.forget(path)

    def symlink(self, target, source):
        os.symlink(source, self.real(target))

    def readlink(self, path):
        return os.readlink(self.real(path))

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self.real(path))

    def fsyncdir(self, path, datasync, fh):
        return 0


def control(fs):
    for line in sys.stdin:
        if line.strip() == "cut":
            fs.cut()
    # The test is gone: detach the mount (MNT_DETACH) so the loop ends and we exit.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.umount2(fs.mountpoint.encode(), 2)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    backing, mountpoint = sys.argv[1], os.path.realpath(sys.argv[2])
    fs = LazyFS(backing, mountpoint)
    threading.Thread(target=control, args=(fs,), daemon=True).start()
    FUSE(fs, mountpoint, raw_fi=True, foreground=True, nothreads=True, fsname="lazyfs", subtype="lazyfs",
         use_ino=True, attr_timeout=0, entry_timeout=0, negative_timeout=0, big_writes=True)


if __name__ == "__main__":
    main()
