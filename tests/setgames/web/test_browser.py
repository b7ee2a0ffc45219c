"""The web table in a real browser (headless Chromium through Selenium): a whole
game of each game played to the end by clicking, with hint, undo, redo and, in
Tu Sac, Find Trash and the move buttons; the replay page steps.

Skipped unless Chromium, its driver and selenium are installed (``.ci/web-smoke``
installs them); run with ``-m browser``. ``SETGAMES_SCREENSHOTS=DIR`` keeps
screenshots of the page to look at.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.setgames.web.helpers import running_server

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("no Chromium or chromedriver on this machine", allow_module_level=True)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

SHOTS = os.environ.get("SETGAMES_SCREENSHOTS")
SIZES = {"phone": (390, 844, True), "laptop": (1366, 900, False)}  # CSS px, and whether it is a mobile
MAX_CLICKS = 1500  # a bound on one game's clicks, so that a bug fails instead of hanging


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1500,1050"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def _size(driver, name: str) -> None:
    width, height, mobile = READ_SIZES[name]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


@pytest.fixture(params=["laptop"])
def page(browser, tmp_path, request):
    _size(browser, request.param)
    with running_server(tmp_path / "saves") as server:
        browser.delete_all_cookies()
        browser.get(server.url)
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        yield browser


def _views(d) -> int:
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-views") or 0)


def _click_and_wait(d, element) -> None:
    """Click something that asks the server, and wait for its answer to be shown
    (or for the warning to come up)."""
    before = _views(d)
    element.click()
    WebDriverWait(d, 60).until(lambda d: _views(d) > before or d.find_element(By.ID, "warning").is_displayed()
                               or d.find_element(By.ID, "message").get_attribute("class") == "error")


def _shot(d, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def _check_layout(d, size: str) -> None:
    """What a phone needs: nothing wider than the screen but the table (which scrolls), every
    enabled button at least 44 px high, the table's cards no narrower than ~40 px."""
    width = SIZES[size][0]
    assert d.execute_script("return document.documentElement.scrollWidth") <= width + 1
    if size == "phone":
        low = d.execute_script("""return [...document.querySelectorAll('button, select')]
            .filter(b => b.offsetParent && b.getBoundingClientRect().height < 44)
            .map(b => b.id || b.textContent)""")
        assert low == [], low
        # The narrowest clickable card on the table, as drawn.
        narrow = d.execute_script("""const w = [...document.querySelectorAll(
            '#table .move > rect:first-of-type')].map(r => r.getBoundingClientRect().width);
            return w.length ? Math.min(...w) : 99""")
        assert narrow >= 38, narrow


def _new_game(d, game: str, players: int, seed: int) -> None:
    Select(d.find_element(By.ID, "game")).select_by_value(game)
    Select(d.find_element(By.ID, "players")).select_by_value(str(players))
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    Select(d.find_element(By.ID, "opponents")).select_by_value("greedy")
    Select(d.find_element(By.ID, "hint-bot")).select_by_value("greedy")
    d.find_element(By.ID, "seed").clear()
    d.find_element(By.ID, "seed").send_keys(str(seed))
    _click_and_wait(d, d.find_element(By.ID, "new-game"))


def _over(d) -> bool:
    return d.find_element(By.ID, "status").get_attribute("data-over") == "1"


def _ply_log(d) -> list[str]:
    return [li.text for li in d.find_elements(By.CSS_SELECTOR, "#log li")]


def _enabled(d, button_id: str):
    found = d.find_elements(By.ID, button_id)
    return found[0] if found and found[0].is_enabled() else None


def _click_a_move(d) -> None:
    """One move of a game without move buttons: a card of the table if one is
    clickable (the last drawn: nothing covers it), else the first move of the list."""
    cards = d.find_elements(By.CSS_SELECTOR, "#table .move")
    _click_and_wait(d, cards[-1] if cards else d.find_element(By.CSS_SELECTOR, "#moves button"))


def _click_a_tusac_move(d) -> None:
    """One Tu Sac move the Vinagames way: Find Trash then Discard, or Meld, Hit, Pass."""
    if _enabled(d, "btn-discard"):
        d.find_element(By.ID, "cmd-trash").click()  # asks the server: wait for the answer
        WebDriverWait(d, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#table .move.selected"))
        _click_and_wait(d, d.find_element(By.ID, "btn-discard"))
    elif _enabled(d, "btn-meld"):
        d.find_element(By.ID, "btn-meld").click()
        choices = d.find_elements(By.CSS_SELECTOR, "#choices button")
        if choices:
            _click_and_wait(d, choices[0])
        else:
            WebDriverWait(d, 30).until(lambda d: True)
    elif _enabled(d, "btn-hit"):
        _click_and_wait(d, d.find_element(By.ID, "btn-hit"))
    else:
        _click_and_wait(d, d.find_element(By.ID, "btn-pass"))
    if d.find_element(By.ID, "warning").is_displayed():
        _click_and_wait(d, d.find_element(By.ID, "warn-yes"))


def _hint_undo_redo(d, name: str) -> None:
    _click_and_wait(d, d.find_element(By.ID, "hint"))
    message = d.find_element(By.ID, "message").text
    assert message.startswith("Hint (greedy): "), message
    assert d.find_elements(By.CSS_SELECTOR, "#moves button.hinted")
    hinted = d.find_element(By.CSS_SELECTOR, "#moves button.hinted").get_attribute("data-action")
    on_table = [g.get_attribute("data-action")
                for g in d.find_elements(By.CSS_SELECTOR, "#table .move.hinted")]
    all_cards = [g.get_attribute("data-action") for g in d.find_elements(By.CSS_SELECTOR, "#table .move")]
    assert on_table == [hinted] or hinted not in all_cards  # marked on the table where it is drawn
    _shot(d, f"{name}-hint")
    log = _ply_log(d)
    _click_a_move(d) if name != "tusac" else _click_a_tusac_move(d)
    assert _ply_log(d) != log
    _click_and_wait(d, d.find_element(By.ID, "undo"))
    assert _ply_log(d)[-1].startswith("Undone")
    _click_and_wait(d, d.find_element(By.ID, "redo"))
    assert _ply_log(d)[-1].startswith("Redone")


@pytest.mark.parametrize("page", list(SIZES), indirect=True)
@pytest.mark.parametrize(("game", "players", "seed"), [("tethsi", 2, 3), ("bharg", 2, 5), ("tusac", 2, 7)])
def test_a_whole_game_by_clicking(page, game, players, seed, request):
    d = page
    size = request.node.callspec.params["page"]
    assert d.find_element(By.CSS_SELECTOR, "meta[name=viewport]")
    _new_game(d, game, players, seed)
    assert d.find_element(By.CSS_SELECTOR, "#table svg")
    title = d.find_element(By.ID, "status").text.split(":")[0]
    assert d.title.startswith(title) and "setgames" in d.title
    _check_layout(d, size)
    # One log: the side panel's; the picture's box of the last events is not shown beside it.
    assert not any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, "#table .events"))
    _shot(d, f"{game}-{size}-start")
    _hint_undo_redo(d, game)
    clicks = 0
    while not _over(d):
        assert clicks < MAX_CLICKS, f"{game}: no end after {clicks} moves"
        assert d.find_element(By.ID, "message").get_attribute("class") != "error", \
            d.find_element(By.ID, "message").text
        if game == "tusac":
            _click_a_tusac_move(d)
        else:
            _click_a_move(d)
        clicks += 1
        if clicks == 6:
            _check_layout(d, size)
            _shot(d, f"{game}-{size}-middle")
    _shot(d, f"{game}-{size}-over")
    assert d.find_element(By.ID, "status").text.startswith("Game over: ")
    assert "seed" in d.find_element(By.ID, "status").text
    assert not d.find_elements(By.CSS_SELECTOR, "#moves button")
    assert not d.find_element(By.ID, "hint").is_displayed()  # the controls leave at the end
    errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors  # no 404 (favicon) and no script error


def test_find_trash_cycles_and_the_discard_warning_asks(page):
    d = page
    for seed in range(30):
        _new_game(d, "tusac", 2, seed)
        if _enabled(d, "btn-discard"):
            break
    d.find_element(By.ID, "cmd-trash").click()
    WebDriverWait(d, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#table .move.selected"))
    text = d.find_element(By.ID, "message").text
    assert text.startswith("Selected: discard ") and "\nTrash " in text, text
    seen = []
    for _ in range(4):
        sel = d.find_element(By.CSS_SELECTOR, "#table .move.selected").get_attribute("data-action")
        seen.append(sel)
        d.find_element(By.ID, "cmd-trash").click()
        time.sleep(0.05)
    legal = {b.get_attribute("data-action") for b in d.find_elements(By.CSS_SELECTOR, "#moves button")}
    assert set(seen) <= legal
    _shot(d, "tusac-find-trash")
    # Quick Select picks the hint's move; a discard outside the worst cards asks first.
    d.find_element(By.ID, "quick-select").click()
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "message").text.startswith("Selected: "))
    cards = d.find_elements(By.CSS_SELECTOR, "#table .move")
    for k in range(len(cards)):
        before = _ply_log(d)
        # A card partly covered by the next one is clicked on its visible left edge.
        card = d.find_elements(By.CSS_SELECTOR, "#table .move")[k]
        ActionChains(d).move_to_element_with_offset(card, -card.size["width"] // 2 + 4, 0).click().perform()
        _click_and_wait(d, d.find_element(By.ID, "btn-discard"))
        if d.find_element(By.ID, "warning").is_displayed():
            assert d.find_element(By.ID, "warning-title").text == "Discard!!!"
            _shot(d, "tusac-discard-warning")
            d.find_element(By.ID, "warn-no").click()
            assert _ply_log(d) == before and d.find_element(By.ID, "message").text == "Not played."
            return
        _click_and_wait(d, d.find_element(By.ID, "undo"))
    pytest.skip("every discard of this deal was among the worst")


def test_watch_the_bots_to_the_end(page):
    d = page
    _new_game(d, "tethsi", 2, 11)
    d.find_element(By.ID, "watch").click()
    WebDriverWait(d, 300).until(_over)
    # textContent: the controls are hidden once the game is over.
    WebDriverWait(d, 10).until(lambda d: d.find_element(By.ID, "watch").get_attribute("textContent")
                               == "Watch the bots")
    assert any(line.startswith("player_0 (greedy): ") for line in _ply_log(d))


def test_the_replay_page_steps(browser, tmp_path):
    import json

    from setgames.draw.replay import replay_html
    from tests.setgames.draw.test_replay import _record

    rec = _record("tusac", 3, num_players=3)
    out = tmp_path / "replay.html"
    out.write_text(replay_html(rec))
    browser.get(out.as_uri())
    n = len(rec["actions"])
    caption = browser.find_element(By.ID, "caption").text
    assert caption.startswith(f"move 1 of {n}:")
    assert browser.find_element(By.ID, "count").text == f"move 1 / {n}"
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "caption").text.startswith(f"move 2 of {n}:")
    assert browser.find_element(By.ID, "count").text == f"move 2 / {n}"
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.ID, "caption").text.startswith("the end:")
    assert browser.find_element(By.ID, "count").text == "the end"
    assert browser.find_element(By.CSS_SELECTOR, "#frame svg")
    _shot(browser, "replay")
    assert json.dumps(rec)  # the record itself stays JSON


# ---------------------------------------------------------------------------- legibility
READ_SIZES = {**SIZES, "small-laptop": (1024, 768, False)}

# Per text of the table's chips (discard piles, Sets, melds, dead pile): its font size on the
# screen (the picture's scale and any group's), and its box.
_CHIP_TEXTS = """return [...document.querySelectorAll('#table [data-chip]')].map(g => {
    const t = g.querySelectorAll('text')[1], r = t.getBoundingClientRect();
    return {size: +t.getAttribute('font-size') * t.getScreenCTM().a, name: t.textContent,
            box: [r.left, r.top, r.right, r.bottom]};
})"""
# Cards as drawn (a CSS selector of their groups): the card's box and its name's (a chess card's
# second text, the piece). Tu Sac's own hand is the cards drawn larger; a clickable Decktet card is
# a card whose move it is.
_TUSAC_HAND = '#table g[transform$="scale(1.7)"] > .card'
_CLICKABLE = "#table .card:not([data-chip]) > .move"
_CARDS = """return [...document.querySelectorAll(arguments[0])]
  .map(g => { const r = g.querySelector('rect').getBoundingClientRect();
              const t = g.querySelectorAll('text')[1], n = t.getBoundingClientRect();
              return {box: [r.left, r.top, r.right, r.bottom], name: [n.left, n.top, n.right, n.bottom],
                      size: +t.getAttribute('font-size') * t.getScreenCTM().a}; })"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _readable_chips(d) -> list[dict]:
    chips = d.execute_script(_CHIP_TEXTS)
    # ~10 px: Tu Sac at 1024x768, its table fitted to the window's height, draws them 9.7 px.
    small = [(c["name"], round(c["size"], 1)) for c in chips if c["size"] < 9.5]
    assert small == [], small
    # Every chip's name shows: no chip lies over another's name.
    boxes = [c["box"] for c in chips]
    hidden = [chips[i]["name"] for i in range(len(boxes)) for j in range(len(boxes))
              if i != j and _overlap(boxes[i], boxes[j])]
    assert hidden == [], hidden
    return chips


def _play_until(d, game: str, done, limit: int = 300) -> None:
    for _ in range(limit):
        if done(d):
            return
        assert not _over(d), "the game ended first"
        _click_a_tusac_move(d) if game == "tusac" else _click_a_move(d)
    raise AssertionError("not reached")


@pytest.mark.parametrize("page", list(READ_SIZES), indirect=True)
def test_public_cards_read_and_sets_show_every_card(page, request):
    d = page
    size = request.node.callspec.params["page"]
    _new_game(d, "tethsi", 2, 3)
    # Until both a Set and a few discards are on the table: every card of a Set is a chip of its own.
    def a_set_and_discards(d) -> bool:
        svg = d.find_element(By.CSS_SELECTOR, "#table svg").get_attribute("innerHTML")
        return svg.count("Sets: none yet") < 2 and svg.count('data-chip="1"') >= 6

    _play_until(d, "tethsi", a_set_and_discards)
    chips = _readable_chips(d)
    svg = d.find_element(By.CSS_SELECTOR, "#table svg").get_attribute("innerHTML")
    assert svg.count('data-chip="1"') == len(chips) >= 6
    _shot(d, f"read-tethsi-{size}")
    _new_game(d, "bharg", 3, 5)
    _play_until(d, "bharg", lambda d: len(d.execute_script(_CHIP_TEXTS)) >= 3)
    _readable_chips(d)
    _shot(d, f"read-bharg-{size}")


@pytest.mark.parametrize("page", list(READ_SIZES), indirect=True)
def test_tusac_hand_of_21_cards_and_the_melds_read(page, request):
    d = page
    size = request.node.callspec.params["page"]
    _new_game(d, "tusac", 4, 2026)  # player_0 is dealt 21 and discards first
    hand = d.execute_script(_CARDS, _TUSAC_HAND)
    assert len(hand) == 21
    narrow = min(c["box"][2] - c["box"][0] for c in hand)
    assert narrow >= 39, narrow  # ~40 px: at 1024x768 the table fits the window's height
    # No card covers another, so every card's name shows whole.
    covered = [i for i in range(21) for j in range(21) if i != j and _overlap(hand[i]["box"], hand[j]["box"])]
    assert covered == [], covered
    assert all(c["box"][0] <= c["name"][0] and c["name"][2] <= c["box"][2] for c in hand)
    # On a wide screen the whole table fits the window's height (at 1024 px the header takes two
    # lines, so the hand's last row may need the page scrolled by that much).
    if size != "phone":
        table = d.execute_script("return document.querySelector('#table svg').getBoundingClientRect().height")
        assert table <= READ_SIZES[size][1] - 60, table
    _shot(d, f"read-tusac-{size}-start")
    _play_until(d, "tusac", lambda d: len(d.execute_script(_CHIP_TEXTS)) >= 6)
    _readable_chips(d)
    _shot(d, f"read-tusac-{size}-melds")


@pytest.mark.parametrize("page", list(SIZES), indirect=True)
def test_the_card_just_drawn_is_marked(page, request):
    d = page
    size = request.node.callspec.params["page"]
    _new_game(d, "bharg", 2, 5)
    assert not d.find_elements(By.CSS_SELECTOR, "#table .drawn")
    _play_until(d, "bharg", lambda d: d.find_elements(By.ID, "move-0"))  # the deck is clickable
    _click_and_wait(d, d.find_element(By.CSS_SELECTOR, '#table .move[data-action="0"]'))
    marks = d.find_elements(By.CSS_SELECTOR, "#table .drawn")
    assert len(marks) == 1
    # The mark sits on a card of the person's hand (now clickable: it is their discard).
    mark = d.execute_script("const r = arguments[0].getBoundingClientRect(); "
                            "return [r.left, r.top, r.right, r.bottom]", marks[0])
    hand = d.execute_script(_CARDS, _CLICKABLE)
    assert any(_overlap(mark, c["box"]) for c in hand)
    assert "drawn" in marks[0].text
    _shot(d, f"drawn-bharg-{size}")
    # Tu Sac: the card the person's hit turns up, while it is theirs to meld or pass.
    _new_game(d, "tusac", 2, 3)
    _play_until(d, "tusac", lambda d: _enabled(d, "btn-hit"))
    _click_and_wait(d, d.find_element(By.ID, "btn-hit"))
    svg = d.find_element(By.CSS_SELECTOR, "#table svg").get_attribute("innerHTML")
    if "hit by" in svg and ">player_0<" in svg.split("hit by")[1][:200]:
        assert d.find_elements(By.CSS_SELECTOR, "#table .drawn")
    _shot(d, f"drawn-tusac-{size}")


def test_the_bot_menus_follow_the_game(page):
    """Each game's menus hold the bots the server offers for it (Tet Hsi's inferring search in
    Tet Hsi only); a choice the next game offers too is kept, one it lacks falls back to greedy,
    and the hint bot left at the strongest moves to the next game's strongest."""
    from setgames.web.table import bot_choices

    d = page

    def menu(element_id):
        sel = Select(d.find_element(By.ID, element_id))
        chosen = sel.first_selected_option.get_attribute("value")
        return [o.get_attribute("value") for o in sel.options], chosen

    game = Select(d.find_element(By.ID, "game"))
    game.select_by_value("tethsi")
    tethsi, bharg = list(bot_choices("tethsi")), list(bot_choices("bharg"))
    extra = [b for b in tethsi if b not in bharg]
    assert menu("opponents")[0] == tethsi and menu("hint-bot") == (tethsi, tethsi[-1])
    Select(d.find_element(By.ID, "opponents")).select_by_value("level:2")
    game.select_by_value("bharg")
    assert menu("opponents") == (bharg, "level:2") and menu("hint-bot") == (bharg, bharg[-1])
    if extra:  # the compiled search is built: Tet Hsi offers its inferring search
        game.select_by_value("tethsi")
        assert menu("hint-bot") == (tethsi, extra[-1])
        Select(d.find_element(By.ID, "opponents")).select_by_value(extra[0])
        game.select_by_value("bharg")
        assert menu("opponents") == (bharg, "greedy")
