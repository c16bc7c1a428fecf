#!/usr/bin/python3
"""The family's web page in a real browser (Debian's chromium and chromedriver, driven by
python3-selenium), against a real jukeboxd and jukebox-web that WebPageBrowserTests started.

    web-browser-test.py SCENARIO --url http://127.0.0.1:PORT --mpd-port PORT

Scenarios: now-playing (the page shows the playing song and follows a `next`; the buttons
and the queue's remove act; a POST without the CSRF token is refused), xss (a track titled
<img src=x onerror=alert(1)> shows as text), cards (`card ID` on the MPD socket -> the page
offers the new card -> assign a folder -> name it on the page -> `card ID` again plays that
folder and the page shows its name and "last used: today HH:MM"), settings (the
password set with the setup code; a bad value refused with the validator's message, a good one
written with the previous file kept; no session or token, nothing written; wrong passwords
slowed), upload (two MP3s and an .lrc from the page into a new folder: they play with their
lyrics; paths out of the music folder, hidden names, other types, no token or session, an
existing name, sizes over the free space refused; an upload cut off half-way leaves nothing),
restart (a setting saved, Restart pressed: the page says the jukebox runs again, and it does,
a new start with the new setting; the system page shows its facts), music (browse -> Play now
and search -> Add to queue change the daemon's queue; the hostile title found shows as text;
a favourite played, a recently played entry continued).
Exit status 0 when every check held; a missing browser is a failure, not a skip."""

import argparse
import http.client
import os
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (
    NoAlertPresentException,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

XSS = "<img src=x onerror=alert(1)>"
TIMEOUT = 15  # seconds: a deadline for conditions, never a pause


class MPD:
    """A minimal MPD client on the daemon's listener."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.file.readline()  # greeting

    def command(self, line):
        self.sock.sendall((line + "\n").encode())
        fields = []
        while True:
            reply = self.file.readline().decode().rstrip("\n")
            if reply == "OK":
                return fields
            if reply.startswith("ACK"):
                raise RuntimeError(f"{line}: {reply}")
            key, _, value = reply.partition(": ")
            fields.append((key, value))

    def fields(self, line):
        return dict(self.command(line))


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=360,800"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, what, condition):
    try:
        return WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(lambda _: condition())
    except Exception as error:
        raise AssertionError(f"timed out waiting for {what}") from error


def click(driver, selector):
    """Clicks what `selector` finds, finding it again when the page replaced it meanwhile."""
    def attempt():
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    wait(driver, f"a click on {selector}", attempt)


def wait_mpd(what, condition):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def now_playing(driver, mpd, url):
    song = mpd.fields("currentsong")
    driver.get(url + "/")
    wait(driver, f"the title {song['Title']!r}", lambda: text(driver, "title") == song["Title"])
    print(f"shows {song['Title']!r} by {text(driver, 'artist')!r}")

    # A `next` from another client: the page follows through /events, without a reload.
    marker = driver.execute_script("return window.marker = 'same page'")
    mpd.command("next")
    following = mpd.fields("currentsong")
    assert following["Title"] != song["Title"], following
    wait(driver, f"the title {following['Title']!r}", lambda: text(driver, "title") == following["Title"])
    assert driver.execute_script("return window.marker") == marker, "the page reloaded"
    current = driver.find_element(By.CSS_SELECTOR, "#queue li.current").text
    assert following["Title"] in current, current
    print(f"followed next to {following['Title']!r}")

    # The page's own buttons: pause, play, next. Every state event rebuilds the queue, and
    # on a loaded machine one may land between finding a button and clicking it: `click`
    # finds it again.
    click(driver, "button[data-op=pause]")
    wait_mpd("pause", lambda: mpd.fields("status")["state"] == "pause")
    click(driver, "button[data-op=play]")
    wait_mpd("play", lambda: mpd.fields("status")["state"] == "play")
    click(driver, "button[aria-label=Next]")
    wait_mpd("the next song", lambda: mpd.fields("currentsong").get("Title") != following["Title"])
    playing = mpd.fields("currentsong")["Title"]
    wait(driver, f"the title {playing!r}", lambda: text(driver, "title") == playing)
    print("pause, play and next from the page")

    # Remove the last queue entry.
    length = int(mpd.fields("status")["playlistlength"])
    wait(driver, "the whole queue", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#queue li")) == length)
    click(driver, "#queue li:last-child button[data-op=remove]")
    wait_mpd("the removal", lambda: int(mpd.fields("status")["playlistlength"]) == length - 1)
    wait(driver, "the shorter queue", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#queue li")) == length - 1)
    print(f"removed a queue entry ({length} -> {length - 1})")

    # Volume from the slider.
    driver.execute_script(
        "const v = document.getElementById('volume'); v.value = 37;"
        "v.dispatchEvent(new Event('change', {bubbles: true}))")
    wait_mpd("volume 37", lambda: mpd.fields("status").get("volume") == "37")

    # Without the token, nothing changes.
    state = mpd.fields("status")["state"]
    for body in [b"op=pause", b"op=pause&csrf=wrong"]:
        try:
            urllib.request.urlopen(urllib.request.Request(url + "/action", data=body), timeout=10)
            raise AssertionError(f"POST {body!r} was accepted")
        except urllib.error.HTTPError as error:
            assert error.code == 403, error.code
    assert mpd.fields("status")["state"] == state
    print("POSTs without the CSRF token refused (403)")

    # A long queue: the page shows 50 entries around the current song and says what else.
    while int(mpd.fields("status")["playlistlength"]) <= 200:
        mpd.command('add "Alpha/First"')
    length = int(mpd.fields("status")["playlistlength"])
    mpd.command("play 100")
    def shown():
        return (len(driver.find_elements(By.CSS_SELECTOR, "#queue li")),
                driver.find_element(By.ID, "queue").get_attribute("start"))
    try:
        wait(driver, "50 entries from the 96th", lambda: shown() == (50, "96"))
    except AssertionError as error:
        raise AssertionError(f"{error}: shown (entries, start) {shown()}, queue {length}") from None
    expected = f"95 before · {length - 145} more"
    wait(driver, repr(expected), lambda: text(driver, "queue-elsewhere") == expected)
    current = driver.find_element(By.CSS_SELECTOR, "#queue li.current")
    assert current.get_attribute("data-id") == mpd.fields("status")["songid"], current.get_attribute("data-id")
    print(f"a queue of {length}: 50 shown from the 96th, {expected!r}")


def xss(driver, mpd, url):
    driver.get(url + "/")
    songs = mpd.command("playlistinfo")
    ids = [value for key, value in songs if key == "Id"]
    titles = [value for key, value in songs if key == "Title"]
    mpd.command(f"playid {ids[titles.index(XSS)]}")
    wait(driver, "the hostile title as text", lambda: text(driver, "title") == XSS)
    driver.get(url + "/")  # and rendered by the server
    wait(driver, "the hostile title as text", lambda: text(driver, "title") == XSS)
    assert not driver.find_elements(By.CSS_SELECTOR, "#title img, #queue img"), "an <img> was made"
    assert XSS in driver.find_element(By.ID, "queue").text
    try:
        alert = driver.switch_to.alert
        raise AssertionError(f"an alert ran: {alert.text}")
    except NoAlertPresentException:
        pass
    print("the title <img src=x onerror=alert(1)> shows as text, on both renderings")


def cards(driver, mpd, url, setup_code):
    # Signed in only: the first visit goes to the setup page.
    driver.get(url + "/cards")
    wait(driver, "the setup page", lambda: driver.find_elements(By.ID, "setup"))
    assert post_status(url, "/cards/forget", b"card=A&csrf=x") == 401
    set_password(driver, url, setup_code)
    driver.get(url + "/cards")
    assert not driver.find_elements(By.ID, "unknown")
    put = time.monotonic()
    mpd.command("card C0FFEE")
    wait(driver, "the new card offered", lambda: driver.find_elements(By.CSS_SELECTOR, "#unknown[data-card=C0FFEE]"))
    print(f"card C0FFEE on the reader -> offered on the page after {time.monotonic() - put:.3f} s")
    select = Select(driver.find_element(By.CSS_SELECTOR, "#unknown select[name=folder]"))
    labels = {option.get_attribute("value"): option.text for option in select.options}
    assert labels.get("Beta/Second") == "Beta/Second · no card", labels
    # Only folders without a card: Alpha/First has card A.
    assert "card A" in labels.get("Alpha/First", ""), labels
    click(driver, "#unknown .only-free")
    hidden = "return [...document.querySelectorAll('#unknown option')].filter((o) => o.hidden).map((o) => o.value)"
    assert driver.execute_script(hidden) == ["Alpha/First"], driver.execute_script(hidden)
    select.select_by_value("Beta/Second")
    click(driver, "#unknown .assign-button")
    wait(
        driver,
        "the card in the list",
        lambda: "folder Beta/Second" in "".join(
            li.text for li in driver.find_elements(By.CSS_SELECTOR, "#card-list li[data-card=C0FFEE]")),
    )
    assert not driver.find_elements(By.ID, "unknown")
    assert ("card", "C0FFEE") in mpd.command("card info")
    print("assigned Beta/Second to C0FFEE")

    # Named from the page: "unnamed" and "last used: never" until then.
    entry = "#card-list li[data-card=C0FFEE]"
    assert card_text(driver, entry, ".name") == "unnamed", card_text(driver, entry, ".name")
    assert card_text(driver, entry, ".last-used") == "last used: never", card_text(driver, entry, ".last-used")

    def named():
        # Every card event reloads the list, which may take the typed name with it: type and
        # save again until the page shows the name.
        if card_text(driver, entry, ".name") == "yellow car":
            return True
        try:
            driver.execute_script("arguments[0].open = true", driver.find_element(By.CSS_SELECTOR, entry + " details"))
            field = driver.find_element(By.CSS_SELECTOR, entry + " input[name=name]")
            field.clear()
            field.send_keys("yellow car")
            driver.find_element(By.CSS_SELECTOR, entry + " .rename-button").click()
        except (StaleElementReferenceException, NoSuchElementException):
            pass
        return False
    wait(driver, "the card named yellow car", named)
    assert ("name", "yellow car") in mpd.command("card info")
    print("named C0FFEE 'yellow car' from the page")

    # Card A first (a card taken off and put back within the removal debounce was never
    # gone), then C0FFEE again.
    mpd.command("card A")
    wait_mpd("card A playing Alpha/First", lambda: mpd.fields("currentsong").get("file", "").startswith("Alpha/First/"))
    mpd.command("card C0FFEE")
    wait_mpd(
        "C0FFEE playing Beta/Second",
        lambda: mpd.fields("currentsong").get("file", "").startswith("Beta/Second/")
        and mpd.fields("status")["state"] == "play",
    )
    print("card C0FFEE again plays Beta/Second")
    # The read was recorded (the test's daemon trusts its clock: [rules] clock = "system").
    wait(driver, "the last use shown", lambda: card_text(driver, entry, ".last-used").startswith("last used: today "))
    assert card_text(driver, entry, ".name") == "yellow car"
    print(f"C0FFEE shows '{card_text(driver, entry, '.last-used')}'")

    # Forget, from the page (every card read reloads the list: the button may be replaced
    # between finding and clicking it).
    click(driver, "#card-list li[data-card=C0FFEE] button.forget")
    wait(driver, "the card gone", lambda: not driver.find_elements(By.CSS_SELECTOR, "#card-list li[data-card=C0FFEE]"))
    assert ("card", "C0FFEE") not in mpd.command("card info")
    print("forgot C0FFEE")


def card_text(driver, entry, selector):
    """The text of `selector` in a card's entry; "" while the list is being replaced."""
    try:
        return driver.find_element(By.CSS_SELECTOR, f"{entry} {selector}").text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def form_value(driver, key):
    return driver.find_element(By.CSS_SELECTOR, f".field[data-key='{key}'] [name='k:{key}']")


def set_field(driver, key, value):
    field = form_value(driver, key)
    driver.execute_script("arguments[0].closest('details').open = true", field)
    field.clear()
    field.send_keys(value)


def submit(driver, selector):
    """Clicks a form's button and waits for the page the server answers with."""
    old = driver.find_element(By.TAG_NAME, "main")
    driver.find_element(By.CSS_SELECTOR, selector).click()

    def gone():
        # chromedriver says a replaced page's node is gone in two ways: a stale reference,
        # or "Node with given id does not belong to the document".
        try:
            old.is_enabled()
            return False
        except (StaleElementReferenceException, WebDriverException):
            return True
    wait(driver, f"the answer to {selector}", gone)


def submit_settings(driver):
    submit(driver, "form.settings > button")


def post_status(url, path, body, cookie=None):
    request = urllib.request.Request(url + path, data=body)
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


def settings(driver, mpd, url, setup_code, config):
    original = open(config).read()
    # First visit: the setup code from the box's log and a new password.
    driver.get(url + "/settings")
    wait(driver, "the setup page", lambda: driver.find_elements(By.ID, "setup"))
    for code, password, again, expected in [
        ("000000" if setup_code != "000000" else "111111", "kitchen-box", "kitchen-box", "Wrong setup code"),
        (setup_code, "short", "short", "at least 8"),
        (setup_code, "kitchen-box", "kitchen-bix", "differ"),
    ]:
        driver.find_element(By.NAME, "code").send_keys(code)
        driver.find_element(By.NAME, "password").send_keys(password)
        driver.find_element(By.NAME, "again").send_keys(again)
        submit(driver, "#setup form button")
        assert expected in text(driver, "setup"), text(driver, "setup")
    driver.find_element(By.NAME, "code").send_keys(setup_code)
    driver.find_element(By.NAME, "password").send_keys("kitchen-box")
    driver.find_element(By.NAME, "again").send_keys("kitchen-box")
    submit(driver, "#setup form button")
    assert driver.find_elements(By.ID, "settings"), driver.current_url
    print("password set with the setup code (a wrong code, a short and a mistyped password refused)")

    # A bad value: the validator's own message beside the field, nothing written.
    set_field(driver, "audio.start_volume", "400")
    submit_settings(driver)
    problem = ".field.refused[data-key='audio.start_volume'] .problem"
    assert driver.find_elements(By.CSS_SELECTOR, problem), driver.page_source
    message = driver.find_element(By.CSS_SELECTOR, problem).text
    assert "100" in message, message
    assert form_value(driver, "audio.start_volume").get_attribute("value") == "400"
    assert open(config).read() == original, "a refused value was written"
    print(f"start_volume 400 refused: {message!r}")

    # Good ones: written in place, the previous file kept, the changes listed.
    set_field(driver, "audio.start_volume", "40")
    set_field(driver, "audio.max_volume", "60")
    submit_settings(driver)
    assert driver.find_elements(By.ID, "changed"), driver.page_source
    for key in ["audio.start_volume", "audio.max_volume"]:
        assert key in text(driver, "changed"), text(driver, "changed")
    written = open(config).read()
    assert "start_volume = 40" in written and "max_volume = 60" in written, written
    assert open(config + ".previous").read() == original
    print("start_volume 40 and max_volume 60 saved; previous file kept")

    # Without a session or without the token, nothing is written.
    cookie = "jukebox_session=" + driver.get_cookie("jukebox_session")["value"]
    body = b"k%3Aaudio.start_volume=50"
    assert post_status(url, "/settings", body) == 401
    assert post_status(url, "/settings", body, cookie) == 403
    assert post_status(url, "/settings", body + b"&csrf=wrong", cookie) == 403
    assert open(config).read() == written
    print("POST /settings without a session (401) or token (403) refused")

    # Signed out: a wrong password, again and again, is slowed; then the right one.
    submit(driver, "form[action='/logout'] button")
    driver.get(url + "/settings")
    wait(driver, "the sign-in page", lambda: driver.find_elements(By.ID, "login"))
    slowed = False
    for attempt in range(20):
        driver.find_element(By.NAME, "password").send_keys(f"guess-{attempt}")
        submit(driver, "#login form button")
        if "Too many wrong tries" in text(driver, "login"):
            slowed = True
            break
    assert slowed and attempt >= 3, attempt
    print(f"wrong passwords slowed after {attempt} tries")
    # The page says how long to wait; tries before that are refused without counting.
    deadline = time.monotonic() + 120
    while True:
        driver.find_element(By.NAME, "password").send_keys("kitchen-box")
        submit(driver, "#login form button")
        if driver.find_elements(By.ID, "settings"):
            break
        assert "Too many wrong tries" in text(driver, "login"), text(driver, "login")
        assert time.monotonic() < deadline, "still refused after 120 s"
        time.sleep(0.25)
    print("signed in with the password")


def set_password(driver, url, setup_code, password="kitchen-box"):
    driver.get(url + "/setup")
    driver.find_element(By.NAME, "code").send_keys(setup_code)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.NAME, "again").send_keys(password)
    submit(driver, "#setup form button")


RESTART_TIMEOUT = 90  # seconds: the page's own limit is 90 s too


def restart(driver, mpd, url, setup_code, config, mpd_port, supervised):
    """A setting saved, Restart pressed on the settings page: the page waits and says the
    jukebox runs again; the daemon is a new start (under a supervisor: a new process) with
    the new setting. The system page shows the daemon's facts. No session or token: refused."""
    set_password(driver, url, setup_code)
    before = mpd.fields("system")
    driver.get(url + "/settings")
    wait(driver, "the settings page", lambda: driver.find_elements(By.ID, "settings"))
    assert not driver.find_elements(By.ID, "restart"), "a restart button before anything was saved"
    set_field(driver, "audio.start_volume", "40")  # not above the new maximum
    set_field(driver, "audio.max_volume", "55")
    submit_settings(driver)
    assert "audio.max_volume" in text(driver, "changed"), driver.page_source
    assert "max_volume = 55" in open(config).read()
    print(f"max_volume 55 saved; jukeboxd pid {before['pid']}, started {before['started_ms']}")

    # Refused without a session or the token: the daemon stays the same start.
    cookie = "jukebox_session=" + driver.get_cookie("jukebox_session")["value"]
    assert post_status(url, "/system/restart", b"") == 401
    assert post_status(url, "/system/restart", b"csrf=wrong", cookie) == 403
    assert mpd.fields("system")["started_ms"] == before["started_ms"]
    print("POST /system/restart without a session (401) or token (403) refused")

    pressed = time.monotonic()
    submit(driver, "#restart-form button")
    wait(driver, "the waiting page", lambda: driver.find_elements(By.ID, "restarting"))
    try:
        WebDriverWait(driver, RESTART_TIMEOUT, poll_frequency=0.1).until(
            lambda _: driver.find_element(By.ID, "restarting").get_attribute("data-state") != "waiting")
    except Exception as error:
        raise AssertionError(f"the page still waits after {RESTART_TIMEOUT} s: {text(driver, 'restart-status')}") from error
    said = text(driver, "restart-status")
    assert driver.find_element(By.ID, "restarting").get_attribute("data-state") == "running", said
    assert "running again with the new settings" in said, said
    print(f"the page said {said!r} {time.monotonic() - pressed:.1f} s after Restart")

    again = MPD(mpd_port)
    after = again.fields("system")
    assert after["started_ms"] != before["started_ms"], (before, after)
    if supervised:
        assert after["pid"] != before["pid"], (before, after)
    else:
        assert after["pid"] == before["pid"], (before, after)  # it ran itself again in its process
    assert after["pid"] in said, (after, said)
    again.command("setvol 100")
    assert again.fields("status")["volume"] == "55", again.fields("status")
    print(f"jukeboxd runs again (pid {after['pid']}) with max_volume 55")

    driver.get(url + "/system")
    wait(driver, "the system page", lambda: driver.find_elements(By.ID, "system"))
    assert text(driver, "sys-config") == after["config"], text(driver, "sys-config")
    assert text(driver, "sys-tracks").endswith(" tracks"), text(driver, "sys-tracks")
    assert "jukeboxd " + after["version"] in text(driver, "sys-version")
    assert "MiB" in text(driver, "sys-free") or "GiB" in text(driver, "sys-free")
    assert driver.find_elements(By.CSS_SELECTOR, "#restart-form button")
    print(f"/system: {text(driver, 'sys-version')}, {text(driver, 'sys-tracks')}, up {text(driver, 'sys-uptime')}")


def raw_upload(url, path, length, body, headers):
    """POSTs `body` to /upload/file with a Content-Length of `length` (maybe more than is sent,
    then the connection is closed); the status, or None when the server closed first."""
    host, port = url.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.putrequest("POST", "/upload/file?path=" + urllib.parse.quote(path))
    connection.putheader("Content-Length", str(length))
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders()
    try:
        if body:
            connection.send(body)
        if len(body) < length:
            connection.sock.shutdown(socket.SHUT_RDWR)
            connection.close()
            return None
        return connection.getresponse().status
    except (ConnectionError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def leftovers(music):
    return [os.path.join(folder, name) for folder, _, names in os.walk(music) for name in names if ".upload-" in name]


def upload(driver, mpd, url, setup_code, music, files):
    set_password(driver, url, setup_code)
    driver.get(url + "/upload")
    wait(driver, "the upload page", lambda: driver.find_elements(By.ID, "upload-form"))
    free = int(driver.find_element(By.ID, "free").get_attribute("data-bytes"))
    folder = driver.find_element(By.ID, "upload-folder")
    folder.clear()
    folder.send_keys("Uploaded/Trip")
    driver.find_element(By.ID, "upload-files").send_keys("\n".join(files))
    driver.find_element(By.CSS_SELECTOR, "#upload-form button").click()
    wait(driver, "the uploads", lambda: "3 of 3 files uploaded" in text(driver, "upload-status"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#upload-list li[data-result=done] progress")
    assert len(rows) == 3 and all(float(row.get_attribute("value")) == 1 for row in rows)
    print("3 files uploaded from the page, each with its progress bar")

    def songs():
        return [value for key, value in mpd.command('lsinfo "Uploaded/Trip"') if key == "file"]
    wait_mpd("the two songs in the library", lambda: len(songs()) == 2)
    morning = next(song for song in songs() if "Morning" in song)
    mpd.command("clear")
    mpd.command(f'add "{morning}"')
    mpd.command("play 0")
    wait_mpd("the uploaded song playing", lambda: mpd.fields("status")["state"] == "play")
    wait_mpd("its lyrics", lambda: mpd.fields("lyrics").get("line") == "Uploaded line one")
    print(f"{morning} plays with its uploaded lyrics")

    cookie = "jukebox_session=" + driver.get_cookie("jukebox_session")["value"]
    headers = {"Cookie": cookie, "X-CSRF-Token": driver.find_element(By.CSS_SELECTOR, "meta[name=csrf]").get_attribute("content")}
    body = b"ID3" + b"\0" * 997
    for path in ["../escape.mp3", "/tmp/escape.mp3", "Uploaded/../../escape.mp3", "Uploaded/.hidden.mp3",
                 "Uploaded/run.sh", "Uploaded//x.mp3", ""]:
        status = raw_upload(url, path, len(body), body, headers)
        assert status == 400, (path, status)
    assert not os.path.exists(os.path.join(os.path.dirname(music), "escape.mp3"))
    assert not os.path.exists("/tmp/escape.mp3")
    print("paths that leave the music folder, hidden names and other types refused (400)")
    assert raw_upload(url, "Uploaded/x.mp3", len(body), body, {"Cookie": cookie}) == 403
    assert raw_upload(url, "Uploaded/x.mp3", len(body), body, {"X-CSRF-Token": headers["X-CSRF-Token"]}) == 401
    assert raw_upload(url, "Uploaded/Trip/" + os.path.basename(morning), len(body), body, headers) == 409
    print("no token (403), no session (401), an existing file (409): refused")
    # More than the card holds (less the reserve), or more than a file may have: refused
    # before a byte is written.
    for length in [free, (4 << 30) + 1, 2 << 30 if free < (2 << 30) else free - (32 << 20)]:
        assert raw_upload(url, "Uploaded/big.mp3", length, b"", headers) in (413, None), length
        assert not os.path.exists(os.path.join(music, "Uploaded/big.mp3")) and not leftovers(music)
    print(f"uploads larger than the free space ({free >> 20} MiB less the reserve) refused before writing")
    # Cut off half-way: the temporary file goes, nothing else stays.
    assert raw_upload(url, "Uploaded/cut.mp3", 1_000_000, b"\0" * 100_000, headers) is None
    wait_mpd("the cut-off upload's temporary file removed", lambda: not leftovers(music))
    assert not os.path.exists(os.path.join(music, "Uploaded/cut.mp3"))
    print("an upload cut off half-way left nothing behind")


def music(driver, mpd, url):
    """Browse -> Play now, search -> Add to queue, favourites and recently played, on the
    music page (no script on it: plain forms and redirects)."""
    def queue_files():
        return [value for key, value in mpd.command("playlistinfo") if key == "file"]

    driver.get(url + "/music")
    wait(driver, "the music page", lambda: driver.find_elements(By.ID, "music-list"))
    assert driver.find_elements(By.CSS_SELECTOR, "nav a[href='/system']"), "no System link"
    for folder in ["Alpha", "Alpha/First"]:
        submit(driver, f"#music-list li.folder[data-path='{folder}'] a")
    wait(driver, "the folder's count", lambda: text(driver, "music-count") == "0 folders, 2 songs")
    submit(driver, "#music-list li.song[data-file='Alpha/First/02.mp3'] button[name=now]")
    wait_mpd("Alpha/First/02.mp3 playing alone",
             lambda: mpd.fields("currentsong").get("file") == "Alpha/First/02.mp3"
             and mpd.fields("status")["state"] == "play" and queue_files() == ["Alpha/First/02.mp3"])
    wait(driver, "the now-playing line", lambda: "Alpha First 2" in text(driver, "music-now"))
    assert "Playing." in text(driver, "music"), text(driver, "music")
    print("browse Alpha -> First -> Play now on 02.mp3: the box plays it")

    field = driver.find_element(By.NAME, "q")
    field.clear()
    field.send_keys("gamma SECOND")
    Select(driver.find_element(By.NAME, "by")).select_by_value("title")
    submit(driver, "form.search button")
    wait(driver, "the search's count", lambda: text(driver, "music-count") == "2 songs found.")
    submit(driver, "#music-list li.song[data-file='Gamma/Second/01.mp3'] button[name=add]")
    wait_mpd("Gamma/Second/01.mp3 queued",
             lambda: queue_files() == ["Alpha/First/02.mp3", "Gamma/Second/01.mp3"])
    assert mpd.fields("currentsong").get("file") == "Alpha/First/02.mp3"
    assert "Added to the queue." in text(driver, "music"), text(driver, "music")
    assert driver.find_element(By.NAME, "q").get_attribute("value") == "gamma SECOND"
    print("search 'gamma SECOND' by title: 2 found; Add to queue queued Gamma/Second/01.mp3")
    for path in ["/music", "/music?path=Alpha/First", "/music?q=first&by=any"]:
        with urllib.request.urlopen(url + path, timeout=10) as reply:
            print(f"GET {path}: {len(reply.read())} bytes")

    # The hostile title found by a search shows as text.
    driver.get(url + "/music?q=" + urllib.parse.quote("onerror") + "&by=title")
    hostile = "#music-list li.song[data-file='Hostile/01.mp3']"
    wait(driver, "the hostile title", lambda: driver.find_elements(By.CSS_SELECTOR, hostile))
    assert XSS in driver.find_element(By.CSS_SELECTOR, hostile).text
    assert not driver.find_elements(By.CSS_SELECTOR, "#music img"), "an <img> was made"
    print("the title <img src=x onerror=alert(1)> found and shown as text")

    # Favourites: the playing song marked on the box, then played from the page.
    mpd.command("favourite add")
    mpd.command("clear")
    driver.get(url + "/music")
    favourite = "#favourites li.song[data-file='Alpha/First/02.mp3']"
    wait(driver, "the favourite", lambda: driver.find_elements(By.CSS_SELECTOR, favourite))
    submit(driver, "#favourites button[name=favourites]")
    wait_mpd("the favourites playing",
             lambda: mpd.fields("currentsong").get("file") == "Alpha/First/02.mp3"
             and mpd.fields("status")["state"] == "play")
    print("favourite marked on the box -> listed -> Play all plays it")

    # Recently played: a card plays Alpha/First; the page continues it after the queue is gone.
    mpd.command("card A")
    wait_mpd("Alpha/First in recent",
             lambda: any("Alpha/First" in value for key, value in mpd.command("recent") if key == "recent"))
    mpd.command("clear")
    driver.get(url + "/music")
    entries = driver.find_elements(By.CSS_SELECTOR, "#recent li[data-recent]")
    first = next(entry for entry in entries if "Alpha/First" in entry.text)
    number, said = first.get_attribute("data-recent"), first.text
    submit(driver, f"#recent li[data-recent='{number}'] button[name=recent]")
    wait_mpd("Alpha/First continued",
             lambda: mpd.fields("currentsong").get("file", "").startswith("Alpha/First/")
             and mpd.fields("status")["state"] == "play")
    print(f"recently played entry {number} ({said!r}) continued")

    # Without the token, nothing is queued.
    length = mpd.fields("status")["playlistlength"]
    assert post_status(url, "/music/play", b"add=Beta") == 403
    assert post_status(url, "/music/play", b"add=Beta&csrf=wrong") == 403
    assert mpd.fields("status")["playlistlength"] == length
    print("POSTs without the CSRF token refused (403)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["now-playing", "xss", "cards", "settings", "upload", "restart", "music"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--mpd-port", type=int, required=True)
    parser.add_argument("--setup-code", help="the code jukebox-web logged, to set the password")
    parser.add_argument("--config", help="settings: the config file both processes read")
    parser.add_argument("--music", help="upload: the music folder")
    parser.add_argument("--files", nargs="*", default=[], help="upload: the files to upload")
    parser.add_argument("--supervised", action="store_true",
                        help="restart: the daemon runs under a supervisor (a new process after a restart)")
    arguments = parser.parse_args()
    mpd = MPD(arguments.mpd_port)
    driver = browser()
    try:
        if arguments.scenario == "cards":
            cards(driver, mpd, arguments.url, arguments.setup_code)
        elif arguments.scenario == "settings":
            settings(driver, mpd, arguments.url, arguments.setup_code, arguments.config)
        elif arguments.scenario == "restart":
            restart(driver, mpd, arguments.url, arguments.setup_code, arguments.config, arguments.mpd_port,
                    arguments.supervised)
        elif arguments.scenario == "upload":
            upload(driver, mpd, arguments.url, arguments.setup_code, arguments.music, arguments.files)
        else:
            {"now-playing": now_playing, "xss": xss, "music": music}[arguments.scenario](driver, mpd, arguments.url)
        # A song without a picture answers 404 on /cover, and the browser asks for a favicon;
        # the settings scenario's refused forms answer 400, 401 and 429 on purpose.
        refused = ("/settings", "/setup", "/login", "/upload/file")
        errors = [
            entry
            for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE"
            and "/cover?" not in entry["message"]
            and "favicon" not in entry["message"]
            and not (arguments.scenario in ("settings", "upload") and any(path in entry["message"] for path in refused))
        ]
        assert not errors, errors
    finally:
        driver.quit()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
