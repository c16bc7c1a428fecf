import JukeboxCore
import Logging

/// Opens the hardware display drivers named by `[display] kind`.
public enum DisplayDrivers {
    /// The screen for `config`, or nil (logged) when it cannot be opened.
    public static func open(config: JukeboxConfig.Display, logger: Logger) -> Screen? {
        switch config.kind {
        case .framebuffer:
            let device = config.device.isEmpty ? "/dev/fb0" : config.device
            do {
                let framebuffer = try Framebuffer.open(device: device)
                let font = fontFor(config: config, logger: logger)
                let g = framebuffer.geometry
                logger.info("display: \(device) \(g.width)x\(g.height) \(g.bitsPerPixel) bpp, \(font.count) glyphs")
                return FramebufferScreen(framebuffer: framebuffer, font: font)
            } catch {
                logger.error("display: \(error); going on without a display")
                return nil
            }
        case .serialLCD:
            let device = config.device.isEmpty ? "/dev/ttyUSB0" : config.device
            do {
                return CharacterScreen(
                    display: try SerialCharacterLCD(
                        device: device, baud: config.baud, columns: config.columns, rows: config.rows,
                        protocol: config.serialProtocol))
            } catch {
                logger.error("display: \(error); going on without a display")
                return nil
            }
        case .i2cLCD:
            let device = config.device.isEmpty ? "/dev/i2c-1" : config.device
            do {
                return CharacterScreen(
                    display: try I2CCharacterLCD(
                        device: device, address: config.i2cAddress, columns: config.columns, rows: config.rows))
            } catch {
                logger.error("display: \(error); going on without a display")
                return nil
            }
        case .terminal, .none:
            return nil
        }
    }

    /// The configured .hex font, else Unifont when installed, else the built-in glyphs.
    public static func fontFor(config: JukeboxConfig.Display, logger: Logger) -> BitmapFont {
        if !config.font.isEmpty {
            do {
                return try BitmapFont.load(path: config.font)
            } catch {
                logger.warning("display: font \(config.font): \(error); using the built-in font")
                return BitmapFont.builtin()
            }
        }
        return BitmapFont.system()
    }
}
