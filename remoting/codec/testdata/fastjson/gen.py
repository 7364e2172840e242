import json, random
random.seed(9)
def rnum():
    r = random.random()
    sign = random.choice(['', '', '-'])
    ip = random.choice(['0', '1', '7', '10', '123', '007', '9223372036854775807', '9223372036854775808', '2147483648', '100000000000000000000000'])
    if r < 0.3: return sign + ip
    frac = random.choice(['', '0', '5', '50', '000001', '123456789'])
    exp = random.choice(['', 'e0', 'E+2', 'e-3', 'e-7', 'E10', 'e+0', 'e-20', 'e35'])
    s = sign + ip
    if frac != '' or exp == '' or random.random() < 0.2: s += '.' + frac
    return s + exp
def rstr():
    return json.dumps(random.choice(['', 'a', 'TagA', 'é', '\u2028', '<&>', 'x"y', 'back\\slash', '\u0001\u0002', '\n\t', '\u007f\u0085', '😀', '/']), ensure_ascii=random.random() < 0.5)
KEYS = ['a','b','c','aa','bb','Aa','BB','1','10','topic','queueId','x','y','z','key-0','key-1','key-2','key-3','key-4','key-5','key-6','key-7','key-8','key-9','key-10','key-11','key-12','key-13','é','😀']
def rval(d):
    r = random.random()
    if d > 2 or r < 0.25: return rnum()
    if r < 0.45: return rstr()
    if r < 0.55: return random.choice(['true', 'false', 'null'])
    if r < 0.75:
        return '[' + ','.join(rval(d+1) for _ in range(random.randint(0, 4))) + ']'
    n = random.choice([0,1,2,3,5,14]) if d else random.choice([0,2,14,20])
    ks = [random.choice(KEYS) for _ in range(n)]
    ws = random.choice(['', ' ', '\t '])
    return '{' + ws + (','+ws).join(json.dumps(k) + ws + ':' + ws + rval(d+1) for k in ks) + ws + '}'
for i in range(200):
    n = random.randint(1, 4)
    ext = ','.join('"k%d":%s' % (j, rval(0)) for j in range(n))
    print('{"code":1,"extFields":{%s}}' % ext)
