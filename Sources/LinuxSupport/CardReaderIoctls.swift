import CLinuxShims

/// The ioctls of the card readers: an input device's grab, spidev transfers.
extension FileDescriptor {
    /// Takes the input device's events for this descriptor alone, or gives them back (ioctl
    /// EVIOCGRAB): while grabbed, no console, X server or other reader sees them.
    public func grabInputDevice(_ grab: Bool = true) throws(Errno) {
        _ = try call("ioctl(EVIOCGRAB)") { jb_evdev_grab($0, grab ? 1 : 0) }
    }

    /// Sets an spidev's SPI mode, 8-bit words and its maximum clock (SPI_IOC_WR_MODE,
    /// SPI_IOC_WR_BITS_PER_WORD, SPI_IOC_WR_MAX_SPEED_HZ).
    public func configureSPI(mode: UInt8, speedHz: UInt32) throws(Errno) {
        _ = try call("ioctl(SPI_IOC_WR_MODE)") { jb_spi_configure($0, mode, speedHz) }
    }

    /// One full-duplex SPI transfer with chip select held throughout (SPI_IOC_MESSAGE(1)):
    /// the bytes clocked in while `bytes` went out.
    public func spiTransfer(_ bytes: [UInt8], speedHz: UInt32) throws(Errno) -> [UInt8] {
        var received = [UInt8](repeating: 0, count: bytes.count)
        _ = try call("ioctl(SPI_IOC_MESSAGE)") { fd in
            bytes.withUnsafeBufferPointer { tx in
                received.withUnsafeMutableBufferPointer { rx in
                    jb_spi_transfer(fd, tx.baseAddress, rx.baseAddress, UInt32(tx.count), speedHz)
                }
            }
        }
        return received
    }
}
