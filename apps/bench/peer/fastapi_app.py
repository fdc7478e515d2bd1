"""The FastAPI peer: the same routes as the bench's tRPC router, written the way FastAPI's
documentation writes them (OAuth2PasswordBearer, nested Security scopes,
OAuth2PasswordRequestForm, and for /items-jwt the "OAuth2 scopes" tutorial's JWT check with
PyJWT), each with a response model as ours has an output schema."""

import json
import os
from typing import List, Optional

import jwt
from fastapi import Depends, FastAPI, HTTPException, Security, status
from fastapi.security import OAuth2PasswordBearer, OAuth2PasswordRequestForm, SecurityScopes
from pydantic import BaseModel

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_jwt.json")) as jwt_file:
    BENCH_JWT = json.load(jwt_file)
PUBLIC_KEY = jwt.algorithms.ECAlgorithm.from_jwk(json.dumps(BENCH_JWT["publicJwk"]))

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


async def current_jwt_caller(security_scopes: SecurityScopes, token: str = Depends(oauth2_scheme)) -> Caller:
    authenticate_value = f'Bearer scope="{security_scopes.scope_str}"' if security_scopes.scopes else "Bearer"
    try:
        payload = jwt.decode(
            token, PUBLIC_KEY, algorithms=["ES256"], audience=BENCH_JWT["audience"], issuer=BENCH_JWT["issuer"]
        )
    except jwt.PyJWTError:
        raise HTTPException(
            status_code=status.HTTP_401_UNAUTHORIZED,
            detail="Could not validate credentials",
            headers={"WWW-Authenticate": authenticate_value},
        )
    token_scopes = str(payload.get("scope", "")).split()
    for scope in security_scopes.scopes:
        if scope not in token_scopes:
            raise HTTPException(
                status_code=status.HTTP_403_FORBIDDEN,
                detail="Not enough permissions",
                headers={"WWW-Authenticate": authenticate_value},
            )
    return Caller(token=token, scopes=security_scopes.scopes)


async def current_jwt_me(caller: Caller = Security(current_jwt_caller, scopes=["me"])) -> Caller:
    return caller


@app.get("/items-jwt", response_model=Caller)
async def items_jwt(caller: Caller = Security(current_jwt_me, scopes=["items"])) -> Caller:
    return caller


@app.post("/token", response_model=TokenResponse)
async def token(form: OAuth2PasswordRequestForm = Depends()) -> TokenResponse:
    return TokenResponse(access_token=f"token-of-{form.username}", token_type="bearer", scope=" ".join(form.scopes))
