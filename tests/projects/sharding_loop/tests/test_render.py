import time


class TestRender:
    @classmethod
    def setup_class(cls):
        time.sleep(1.5)  # the templates compiled
        cls.pages = 8

    def test_page_0(self):
        time.sleep(0.1)
        assert self.pages == 8

    def test_page_1(self):
        time.sleep(0.1)

    def test_page_2(self):
        time.sleep(0.1)

    def test_page_3(self):
        time.sleep(0.1)

    def test_page_4(self):
        time.sleep(0.1)

    def test_page_5(self):
        time.sleep(0.1)

    def test_page_6(self):
        time.sleep(0.1)

    def test_page_7(self):
        time.sleep(0.1)
