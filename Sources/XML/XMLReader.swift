import CLazyLibraries
import CXML2

/// A failed libxml2 call: the call, the file, and libxml2's own message with its line.
public struct XMLError: Error, Equatable, CustomStringConvertible, Sendable {
    public var call: String
    public var file: String
    /// libxml2's text (`Premature end of data in tag channel line 12`), or dlopen's.
    public var message: String

    public var description: String { "\(file): \(call): \(message)" }
}

/// One node of a document, as the reader meets them.
public enum XMLNode: Sendable, Equatable {
    /// An element opened (an empty one, `<a/>`, is followed at once by its `end`).
    case start(name: String, namespace: String, attributes: [XMLAttribute])
    case end
    /// Character data or CDATA (entities replaced).
    case text(String)
}

/// An attribute: its local name (no prefix) and value.
public struct XMLAttribute: Sendable, Equatable {
    public var name: String
    public var value: String

    /// An attribute.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// libxml2's streaming reader over one file: the document is never held whole, so a huge
/// feed costs the reader's small buffers. The single owner of its `xmlTextReaderPtr`, freed
/// in `deinit`; used by one thread at a time. No network (XML_PARSE_NONET), no external DTD,
/// entities not expanded beyond the predefined ones; libxml2's default limits (10 MB text
/// nodes, entity amplification) stay on.
public final class XMLFileReader {
    private let reader: xmlTextReaderPtr
    private let path: String
    /// libxml2's first error message, kept by the structured error handler (libxml2 would
    /// otherwise print to stderr).
    private let errors = ErrorBox()
    private var pendingEnd = false

    private final class ErrorBox {
        var first: String?
    }

    /// Opens libxml2 on first use (see CLazyLibraries), then the file. The corresponding C
    /// function is xmlReaderForFile.
    public init(path: String) throws(XMLError) {
        if let failure = jb_lazy_load(Int32(JB_LIB_XML2)) {
            throw XMLError(call: "dlopen", file: path, message: String(cString: failure))
        }
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue)
        guard let reader = xmlReaderForFile(path, nil, options) else {
            throw XMLError(call: "xmlReaderForFile", file: path, message: "cannot open the file")
        }
        self.reader = reader
        self.path = path
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                let box = Unmanaged<ErrorBox>.fromOpaque(context).takeUnretainedValue()
                guard box.first == nil else { return }
                let text = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
                box.first = "\(text.trimmingNewline) (line \(error.pointee.line))"
            }, Unmanaged.passUnretained(errors).toOpaque())
    }

    deinit { xmlFreeTextReader(reader) }

    /// The next element start, end or text; nil at the end of the document. Throws at the
    /// first error (not well-formed, truncated, not XML), with libxml2's message. The
    /// corresponding C function is xmlTextReaderRead.
    public func next() throws(XMLError) -> XMLNode? {
        if pendingEnd {
            pendingEnd = false
            return .end
        }
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { return nil }
            guard status == 1 else {
                throw XMLError(call: "xmlTextReaderRead", file: path, message: errors.first ?? "not well-formed XML")
            }
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = string(xmlTextReaderConstLocalName(reader))
                let namespace = string(xmlTextReaderConstNamespaceUri(reader))
                pendingEnd = xmlTextReaderIsEmptyElement(reader) == 1
                var attributes: [XMLAttribute] = []
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    attributes.append(
                        XMLAttribute(
                            name: string(xmlTextReaderConstLocalName(reader)),
                            value: string(xmlTextReaderConstValue(reader))))
                }
                if !attributes.isEmpty { xmlTextReaderMoveToElement(reader) }
                return .start(name: name, namespace: namespace, attributes: attributes)
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                return .end
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                return .text(string(xmlTextReaderConstValue(reader)))
            default:
                continue
            }
        }
    }

    private func string(_ text: UnsafePointer<xmlChar>?) -> String {
        text.map { String(cString: $0) } ?? ""
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
