"""What the dashboard knows and decides, without Textual or Rich: its state, the feed that polls, controllers.

``gputui.ui`` draws this and turns keys into controller calls; a test checks that importing this package
loads neither textual nor rich.
"""
