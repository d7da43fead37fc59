# A bot in a score of lines (Python 3, standard library only): it accepts every challenge and
# plays random legal moves. Usage: python3 bot.py http://127.0.0.1:8080 oat_TOKEN
import json, random, sys, threading, time, urllib.request as http
server, token, playing = sys.argv[1], sys.argv[2], set()
def call(path, method="GET"):
    headers = {"Authorization": "Bearer " + token}
    return http.urlopen(http.Request(server + "/api" + path, method=method, headers=headers), timeout=60)
def play(game, me):  # until the game is over, connecting again after a break
    while True:
        try:
            for line in filter(bytes.strip, call(f"/bot/game/stream/{game}")):
                state = json.loads(line).get("state", json.loads(line))
                if state["status"] == "over": return playing.discard(game)
                if state["to_move"] == me:
                    try: call(f"/bot/game/{game}/move/{random.choice(state['legal'])}", "POST")
                    except http.HTTPError as error: print(game, error.code, error.read().decode(), file=sys.stderr)
        except Exception as error: print("game", game, "reconnecting:", error, file=sys.stderr); time.sleep(1)
while True:
    try:
        for line in filter(bytes.strip, call("/stream/event")):
            event = json.loads(line)
            if event["type"] == "challenge" and not event["challenge"]["mine"]:
                call(f"/challenge/{event['challenge']['id']}/accept", "POST")
            if event["type"] == "gameStart" and event["game"]["id"] not in playing:
                playing.add(event["game"]["id"])
                threading.Thread(target=play, args=(event["game"]["id"], event["game"]["color"]), daemon=True).start()
    except Exception as error:
        print("reconnecting:", error, file=sys.stderr)
        time.sleep(1)
