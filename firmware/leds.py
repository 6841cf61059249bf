"""The device's three status LEDs: which bit of ``leds`` is which.

One vocabulary for everything that drives or wires them: the device
(:mod:`traxfpga.firmware.top`), the board self-test and the board top level
(:mod:`traxfpga.boards`), whose board table lists each board's LED pins in this order.
"""

__all__ = ["LED_NAMES", "LED_READY", "LED_THINKING", "LED_ERROR"]

#: The LEDs' names, in bit order.
LED_NAMES = ("ready", "thinking", "error")
#: The bit of each LED in a design's ``leds`` port.
LED_READY, LED_THINKING, LED_ERROR = range(len(LED_NAMES))
