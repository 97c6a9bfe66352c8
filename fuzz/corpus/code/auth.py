à"""Authentication for the example service."""

import hashlib
from dataclasses import dataclass


@dataclass
class User:
    """A user with a salted password hash."""

    name: str
    salt: bytes
    digest: bytes


class AuthService:
    """Checks passwords and issues sessions."""

    def __init__(self, users):
        self.users = {u.name: u for u in users}
        self.sessions = {}

    def login(self, name: str, password: str) -> str:
        """Returns a session token, or raises KeyError."""
        user = self.users[name]
        digest = hashlib.sha256(user.salt + password.encode()).digest()
        if digest != user.digest:
            raise KeyError(name)
        token = hashlib.sha256(digest + name.encode()).hexdigest()
        self.sessions[token] = name
        return token

    def logout(self, token: str) -> None:
        self.sessions.pop(token, None)
