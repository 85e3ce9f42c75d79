"""Account and finance APIs (SPEC.md 3.1 and 3.2).

GetUserToken and CheckToken share the `Account` database; QueryBalance
validates its token through the session's CheckToken. OpenBankAccount keeps
its own per-session table, and QueryBalance/OpenBankAccount return bare values
although their descriptors name `balance` and `status` (upstream quirk B8,
kept: it is documentation under study).
"""

from __future__ import annotations

from typing import Any

from core.benchmarks.apibank.common import (
    DATE,
    ApiDef,
    ApiError,
    ParamSpec,
    as_date,
    check_all_equal,
    check_inputs,
    norm_time,
    trim,
    upper_trim,
)


def get_user_token(session: Any, username: Any, password: Any) -> dict[str, str]:
    accounts = session.db("Account")
    if username not in accounts:
        raise ApiError("The username does not exist.")
    if accounts[username]["password"] != password:
        raise ApiError("The password is incorrect.")
    return {"token": accounts[username]["token"]}


def check_token(session: Any, token: Any) -> dict[str, str]:
    user = session.user_of_token(token)
    if user is None:
        raise ApiError("The token is invalid.")
    return {"username": user}


def open_bank_account(session: Any, account: Any, password: Any, name: Any) -> str:
    table = session.state.setdefault("bank_accounts", {"test": {"password": "test", "name": "yifei"}})
    if account in table:
        return "failed"
    table[account] = {"password": password, "name": name}
    return "success"


def query_balance(session: Any, token: Any) -> Any:
    user = session.user_of_token(token)
    if user is None:
        raise ApiError("The token is incorrect.")
    bank = session.db("Bank")
    if user not in bank:
        raise ApiError("The user does not have an account.")
    return bank[user]["balance"]


def query_stock(session: Any, stock_code: Any, date: Any) -> Any:
    code = stock_code.strip().upper()
    if not code:
        raise ApiError("The stock code cannot be empty.")
    day = norm_time(date, DATE)
    stocks = session.db("Stock")
    if code not in stocks:
        raise ApiError("The stock code does not exist.")
    if day not in stocks[code]:
        raise ApiError("The stock price of this date is not maintained.")
    return stocks[code][day]


APIS: tuple[ApiDef, ...] = (
    ApiDef(
        "GetUserToken",
        "account",
        (ParamSpec("username"), ParamSpec("password")),
        get_user_token,
        check_all_equal,
    ),
    ApiDef("CheckToken", "account", (ParamSpec("token"),), check_token, check_all_equal, has_api_name=False),
    ApiDef(
        "OpenBankAccount",
        "finance",
        (ParamSpec("account"), ParamSpec("password"), ParamSpec("name")),
        open_bank_account,
        check_all_equal,
    ),
    ApiDef("QueryBalance", "finance", (ParamSpec("token"),), query_balance, check_inputs(("token", trim))),
    ApiDef(
        "QueryStock",
        "finance",
        (ParamSpec("stock_code"), ParamSpec("date")),
        query_stock,
        check_inputs(("stock_code", upper_trim), ("date", as_date)),
    ),
)
