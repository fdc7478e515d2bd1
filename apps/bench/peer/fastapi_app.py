"""The FastAPI peer: the same three routes as the bench's tRPC router, written the way
FastAPI's documentation writes them (OAuth2PasswordBearer, nested Security scopes,
OAuth2PasswordRequestForm), each with a response model as ours has an output schema."""

from typing import List, Optional

from fastapi import Depends, FastAPI, Security
from fastapi.security import OAuth2PasswordBearer, OAuth2PasswordRequestForm, SecurityScopes
from pydantic import BaseModel

oauth2_scheme = OAuth2PasswordBearer(tokenUrl="token", scopes={"me": "Read me", "items": "Read items"})

app = FastAPI()


class Caller(BaseModel):
    token: Optional[str]
    scopes: List[str]


class TokenResponse(BaseModel):
    access_token: str
    token_type: str
    scope: str


async def current_caller(security_scopes: SecurityScopes, token: str = Depends(oauth2_scheme)) -> Caller:
    return Caller(token=token, scopes=security_scopes.scopes)


async def current_me(caller: Caller = Security(current_caller, scopes=["me"])) -> Caller:
    return caller


@app.get("/bare", response_model=Caller)
async def bare() -> Caller:
    return Caller(token=None, scopes=[])


@app.get("/items", response_model=Caller)
async def items(caller: Caller = Security(current_me, scopes=["items"])) -> Caller:
    return caller


@app.post("/token", response_model=TokenResponse)
async def token(form: OAuth2PasswordRequestForm = Depends()) -> TokenResponse:
    return TokenResponse(access_token=f"token-of-{form.username}", token_type="bearer", scope=" ".join(form.scopes))
