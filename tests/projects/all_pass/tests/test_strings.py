class TestStrings:
    def test_upper(self):
        assert "hello".upper() == "HELLO"

    def test_split(self):
        assert "a,b,c".split(",") == ["a", "b", "c"]

    def test_strip(self):
        assert "  padded  ".strip() == "padded"
