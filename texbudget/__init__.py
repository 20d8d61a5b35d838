"""texbudget: does this scene fit in the VRAM of the cards we ship on?"""

__version__ = "0.1.0"
