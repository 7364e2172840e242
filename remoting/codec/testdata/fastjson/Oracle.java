// Reads JSON headers, one a line, with fastjson into a bean shaped like
// RocketMQ's RemotingCommand (code, remark, HashMap<String,String> extFields)
// and prints the extFields map as [key, value-or-null] pairs, or "ERR" when
// fastjson throws. Used to make extfields.jsonl:
//   git archive 1.2.83 src/main/java of alibaba/fastjson, drop its support/
//   package (and Guava/Joda codecs), javac -d fj <files>;
//   javac -cp fj Oracle.java
//   cat handwritten.txt <(python3 gen.py) | java -cp fj:. Oracle
// then pair each input line with its output line (and whether Python's json
// module takes it as strict JSON).
import com.alibaba.fastjson.JSON;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class Oracle {
    public static class Cmd {
        private int code;
        private String remark;
        private HashMap<String, String> extFields;
        public int getCode() { return code; }
        public void setCode(int c) { code = c; }
        public String getRemark() { return remark; }
        public void setRemark(String r) { remark = r; }
        public HashMap<String, String> getExtFields() { return extFields; }
        public void setExtFields(HashMap<String, String> m) { extFields = m; }
    }
    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
    public static void main(String[] a) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            try {
                Cmd c = JSON.parseObject(line, Cmd.class);
                StringBuilder b = new StringBuilder("[");
                if (c.getExtFields() == null) { System.out.println("NOMAP"); continue; }
                for (Map.Entry<String, String> e : c.getExtFields().entrySet()) {
                    if (b.length() > 1) b.append(',');
                    b.append('[').append(q(e.getKey())).append(',').append(q(e.getValue())).append(']');
                }
                System.out.println(b.append(']'));
            } catch (Throwable t) {
                System.out.println("ERR " + t.getClass().getSimpleName());
            }
        }
    }
}
