"""The web front end (``trax-fpga web``): play, watch and replay Trax in a browser.

:mod:`.server` serves the page (the files in ``static/``) and its WebSocket;
:mod:`.session` is the game on show; :mod:`.pool` the players, on their own thread;
:mod:`.position` what the page is sent about a position; :mod:`.recorded` replay files;
:mod:`.live` the server inside ``trax-fpga referee --web``; :mod:`.bench` ``trax-fpga bench
web``.  See docs/web.md.
"""
