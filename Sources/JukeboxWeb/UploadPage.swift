/// `/upload`: files and whole folders from a phone or computer into the music folder.
extension Pages {
    public static func upload(token: CSRFToken, freeBytes: Int64) -> String {
        let types = UploadRules.extensions.sorted().map { "." + $0 }.joined(separator: ",")
        var html = head("Jukebox: add music", token: token) + navigation(current: "/upload")
        html += """
            <main id="upload"><h1>Add music</h1>\
            <p id="free" data-bytes="\(freeBytes)">\(freeBytes >> 20) MiB free on the card.</p>\
            <form id="upload-form" data-upload>\
            <label>Into the folder <input id="upload-folder" name="folder" value="Uploads" required></label>\
            <label>Files <input type="file" id="upload-files" multiple accept="\(types)"></label>\
            <label>Or a whole folder <input type="file" id="upload-tree" webkitdirectory></label>\
            <div id="drop" tabindex="0">…or drop files and folders here</div>\
            <button>Upload</button></form>\
            <p id="upload-status" role="status"></p><ol id="upload-list"></ol>\
            <p><small>Audio, lyrics (.lrc), covers and cue sheets; at most \
            \(UploadRules.maxFileBytes >> 20) MiB a file.</small></p>
            """
        html += "</main><script src=\"/app.js\" defer></script></body></html>"
        return html
    }
}
