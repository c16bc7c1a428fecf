import JukeboxCore
import XML

/// Reads a downloaded feed file with libxml2's streaming reader into the core's `FeedParser`.
public enum FeedReader {
    /// The feed in the file at `path`, or one line saying why it is none: not XML, cut short,
    /// an HTML page, another XML vocabulary (libxml2's message and line where it has one).
    public static func read(path: String) -> Result<Feed, FeedProblem> {
        var parser = FeedParser()
        do {
            let reader = try XMLFileReader(path: path)
            while let node = try reader.next() {
                switch node {
                case .start(let name, let namespace, let attributes):
                    try parser.start(
                        name: name, namespace: namespace, attributes: attributes.map { ($0.name, $0.value) })
                case .end: parser.end()
                case .text(let text): parser.text(text)
                }
            }
            return .success(try parser.finish())
        } catch let error as XMLError {
            return .failure(FeedProblem("not a well-formed feed: \(error.message)"))
        } catch let problem as FeedProblem {
            return .failure(problem)
        } catch {
            return .failure(FeedProblem("\(error)"))
        }
    }
}
