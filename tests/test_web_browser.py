"""The web page in a real browser (headless Chromium under Selenium): whole games played
by clicking, only legal tiles offered, a match watched, a recorded game replayed, a board
that goes away.  The game against the simulated board also takes the README's screenshot
(written to the path in $TRAX_WEB_SCREENSHOT, e.g. docs/web.png, when that is set)."""

import os
import random
from pathlib import Path

import pytest

from traxfpga.host.reference.trax import Game, format_move
from web_harness import ServerThread, chromium_missing, close_browser, open_browser, \
    vanishing_spec

pytestmark = pytest.mark.skipif(chromium_missing() is not None,
                                reason=chromium_missing() or "")

#: Seconds to wait for the page (a simulated board's answer takes seconds of wall clock).
WAIT = 120


@pytest.fixture
def browser():
    driver = open_browser()
    yield driver
    close_browser(driver)


def _by():
    from selenium.webdriver.common.by import By
    return By


def wait_for(driver, test, timeout=WAIT):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: test(d))


def body(driver, name):
    return driver.find_element(_by().TAG_NAME, "body").get_attribute(f"data-{name}")


def moves_shown(driver):
    # In one script, so a list redrawn between two reads never mixes two states.
    return driver.execute_script(
        "return [...document.querySelectorAll('#moves li')].map(e => e.textContent)")


def offered(driver):
    """{move: its square's data-square} of every tile the page offers."""
    pairs = driver.execute_script(
        "return [...document.querySelectorAll('#board rect.space')]"
        ".map(r => [r.dataset.square, r.dataset.moves])")
    return {mv: square for square, moves in pairs for mv in moves.split()}


def square(driver, name):
    return driver.find_element(_by().CSS_SELECTOR, f'#board rect.space[data-square="{name}"]')


def start_game(driver, opponent, colour):
    from selenium.webdriver.support.ui import Select
    By = _by()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#opponent option"))
    Select(driver.find_element(By.ID, "opponent")).select_by_value(opponent)
    Select(driver.find_element(By.ID, "colour")).select_by_value(colour)
    driver.find_element(By.ID, "new-game").click()


def play_by_clicking(driver, rng, max_moves=400):
    """Play the game on the page to its end, a random legal tile at each turn, checking
    that the page offers exactly the reference's legal tiles (on the squares and in the
    chooser).  Returns the reference's game."""
    By = _by()
    game = Game()
    while True:
        wait_for(driver, lambda d: body(d, "your-turn") == "true" or body(d, "over") == "true")
        shown = moves_shown(driver)
        for mv in shown[game.ply:]:
            game.play(mv)
        if body(driver, "over") == "true" or game.ply >= max_moves:
            return game
        tiles = offered(driver)
        assert sorted(tiles) == sorted(format_move(m) for m in game.legal_moves())
        move = rng.choice(sorted(tiles))
        square(driver, tiles[move]).click()
        buttons = driver.find_elements(By.CSS_SELECTOR, "#chooser button")
        assert sorted(b.get_attribute("data-move") for b in buttons) == \
            sorted(m for m, sq in tiles.items() if sq == tiles[move])
        next(b for b in buttons if b.get_attribute("data-move") == move).click()
        wait_for(driver, lambda d: len(moves_shown(d)) > len(shown))


def test_a_game_against_ref_by_clicking_offers_only_legal_tiles(browser):
    server = ServerThread(["ref", "random"], delay=0, seed=2)
    try:
        browser.get(server.url)
        start_game(browser, "ref", "black")
        game = play_by_clicking(browser, random.Random(5))
        status = browser.find_element(_by().ID, "status").text
        assert game.over and f"wins by {game.reason}" in status.lower()
        board = browser.find_element(_by().CSS_SELECTOR, "#board svg").get_attribute("outerHTML")
        assert "#f2b705" in board.lower()       # the winning loop or line is marked
    finally:
        server.stop()


def test_a_reloaded_page_carries_on_its_game(browser):
    server = ServerThread(["ref"], delay=0, seed=9)
    try:
        browser.get(server.url)
        start_game(browser, "ref", "black")
        wait_for(browser, lambda d: body(d, "your-turn") == "true")
        before = moves_shown(browser)
        browser.refresh()
        wait_for(browser, lambda d: body(d, "your-turn") == "true" and offered(d))
        assert moves_shown(browser) == before
        game = play_by_clicking(browser, random.Random(3))
        assert game.over
    finally:
        server.stop()


def test_a_long_game_against_random_offers_only_legal_tiles(browser):
    """Against random a game grows a large board: many squares, forced tiles, tiles
    refused for three tracks; 60 moves of it, every turn checked."""
    server = ServerThread(["random"], delay=0, seed=6)
    try:
        browser.get(server.url)
        start_game(browser, "random", "white")
        game = play_by_clicking(browser, random.Random(8), max_moves=60)
        assert game.ply >= 60 or game.over
    finally:
        server.stop()


#: The simulated board with a budget in nodes: its answers in thousands of cycles, not its
#: whole second's 19.2 million (the page is what is tested here).
QUICK_SIM = "sim,nodes=2000"


def test_a_game_against_the_simulated_board_by_clicking(browser, tmp_path):
    server = ServerThread([QUICK_SIM, "ref"], delay=0, seed=3, time_limit=10.0)
    try:
        browser.set_window_size(1000, 720)
        browser.get(server.url)
        start_game(browser, QUICK_SIM, "white")
        game = play_by_clicking(browser, random.Random(1))
        assert game.over
        players = browser.find_element(_by().ID, "players").text
        assert "sim" in players
        # the game's notation, to copy
        notation = browser.find_element(_by().ID, "notation").get_attribute("value")
        assert notation.split() == list(game.moves)
        # look inside: the board's last search and its own view of the game
        assert browser.find_element(_by().ID, "search").text.startswith("search: iteration ")
        assert browser.find_element(_by().ID, "board-status").text.startswith(
            "board's :status: = trax ")
        shot = Path(os.environ.get("TRAX_WEB_SCREENSHOT") or tmp_path / "web.png")
        assert browser.save_screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        server.stop()


def test_watching_a_two_game_match(browser):
    from selenium.webdriver.support.ui import Select
    By = _by()
    server = ServerThread(["ref", "random"], delay=0.2, seed=4)
    try:
        browser.get(server.url)
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#match-white option"))
        Select(browser.find_element(By.ID, "match-white")).select_by_value("ref")
        Select(browser.find_element(By.ID, "match-black")).select_by_value("random")
        games = browser.find_element(By.ID, "games")
        games.clear()
        games.send_keys("2")
        browser.find_element(By.ID, "start-match").click()
        seen = set()

        def finished(d):
            seen.add(len(moves_shown(d)))
            return len(d.find_elements(By.CSS_SELECTOR, "#results li")) == 2 and \
                "match is over" in d.find_element(By.ID, "status").text
        wait_for(browser, finished)
        results = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#results li")]
        assert all(r.split()[0] in ("1-0", "0-1", "1/2-1/2") for r in results)
        assert len(seen) > 3        # the board moved on during the match, not only at its end
        assert not browser.find_element(By.ID, "start-match").get_attribute("disabled")
    finally:
        server.stop()


def test_replaying_a_recorded_game(browser, tmp_path):
    from traxfpga.host.referee import run_match
    By = _by()
    rec = run_match("ref", "random", games=1, seed=7).records[0]
    path = tmp_path / "game-001.txt"
    path.write_text(rec.notation("trax-fpga referee: game 1 of 1"))
    server = ServerThread(["ref"], delay=0)
    n = len(rec.moves)
    try:
        browser.get(server.url)
        wait_for(browser, lambda d: body(d, "mode") == "idle")
        browser.find_element(By.ID, "replay-file").send_keys(str(path))
        ply = lambda d: d.find_element(By.ID, "replay-ply").text       # noqa: E731
        wait_for(browser, lambda d: ply(d) == f"{n} / {n}")
        assert moves_shown(browser) == rec.moves
        browser.find_element(By.ID, "replay-first").click()
        wait_for(browser, lambda d: ply(d) == f"0 / {n}")
        for i in range(1, 4):
            browser.find_element(By.ID, "replay-next").click()
            wait_for(browser, lambda d: ply(d) == f"{i} / {n}")
            assert moves_shown(browser) == rec.moves[:i]
        browser.find_element(By.ID, "replay-prev").click()
        wait_for(browser, lambda d: ply(d) == f"2 / {n}")
        browser.find_element(By.ID, "replay-last").click()
        wait_for(browser, lambda d: ply(d) == f"{n} / {n}")
        assert offered(browser) == {}       # a replay offers no tiles
    finally:
        server.stop()


def test_a_board_that_goes_away(browser):
    By = _by()
    spec = vanishing_spec()
    server = ServerThread([spec, "ref"], delay=0)
    try:
        browser.get(server.url)
        start_game(browser, spec, "black")
        game = play_by_clicking(browser, random.Random(2))
        status = browser.find_element(By.ID, "status").text
        assert not game.over and "lost by timeout" in status, status
        start_game(browser, "ref", "white")
        wait_for(browser, lambda d: body(d, "your-turn") == "true" and offered(d))
        # The server itself going away: the page says so, and comes back with it.
        server.stop()
        wait_for(browser, lambda d: "disconnected" in d.find_element(By.ID, "connection").text,
                 timeout=30)
    finally:
        if server.loop.is_running():
            server.stop()
